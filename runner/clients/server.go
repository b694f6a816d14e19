package clients

import "github.com/respcheck/respcheck/runner/target"

// Server is what respcheck learned about the target before the run (see
// target.Server).
type Server = target.Server
