package runner

// ACLAlone returns opts with the shared-server guard off and the run's
// ACL user kept: what the server alone refuses (TestRunUserAlone).
func ACLAlone(opts Options) Options {
	opts.aclAlone = true
	return opts
}
