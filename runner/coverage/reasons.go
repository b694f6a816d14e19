package coverage

import "strings"

// Why the bundled suite does not send a command, for the entries it
// leaves out on purpose (seen on Redis 8.6.3 and Valkey 9.1.2 with
// respcheck coverage): a reason per command, or per command prefix for
// the cluster's administration. An entry without a reason here is simply
// not covered yet.
var reasons = map[string]string{
	"SHUTDOWN":          "stops the server: it would end a server of the run's pool",
	"FAILOVER":          "changes the server's replication role: needs a replica set",
	"REPLICAOF":         "changes the server's replication role: needs a replica set",
	"SLAVEOF":           "changes the server's replication role: needs a replica set",
	"PSYNC":             "the replication protocol, spoken by replicas",
	"SYNC":              "the replication protocol, spoken by replicas",
	"REPLCONF":          "the replication protocol, spoken by replicas",
	"SAVE":              "writes the dataset to disk: respcheck's servers run without persistence",
	"BGSAVE":            "writes the dataset to disk: respcheck's servers run without persistence",
	"BGREWRITEAOF":      "rewrites the append-only file: respcheck's servers run without persistence",
	"CONFIG REWRITE":    "rewrites the config file: respcheck's servers start without one",
	"ACL LOAD":          "reads the ACL file: respcheck's servers start without one",
	"ACL SAVE":          "writes the ACL file: respcheck's servers start without one",
	"MODULE LOAD":       "needs a module binary: none is installed",
	"MODULE LOADEX":     "needs a module binary: none is installed",
	"MODULE UNLOAD":     "needs a loaded module: none is installed",
	"MONITOR":           "streams every client's commands: on a shared server, other clients' data",
	"RANDOMKEY":         "answers any key of the database: unpredictable beside cases running in parallel",
	"PFSELFTEST":        "takes 1.4 to 4.1 s of server time (near the step deadline on Redis 7.0.15)",
	"XIDMPRECORD":       "internal: the replication of an idempotent XADD",
	"ASKING":            "a cluster redirection's handshake: sent by cluster clients after -ASK",
	"RESTORE-ASKING":    "internal: slot migration between cluster nodes",
	"TRIMSLOTS":         "internal: slot migration between cluster nodes",
	"CLUSTER MIGRATION": "slot migration: changes the cluster's topology",
}

// clusterAdmin are the CLUSTER subcommands that change a cluster's
// topology or a node's configuration.
var clusterAdmin = []string{"ADDSLOTS", "ADDSLOTSRANGE", "BUMPEPOCH", "DELSLOTS", "DELSLOTSRANGE", "FAILOVER",
	"FLUSHSLOT", "FLUSHSLOTS", "FORGET", "MEET", "REPLICATE", "RESET", "SAVECONFIG", "SET-CONFIG-EPOCH",
	"SYNCSLOTS", "MIGRATESLOTS", "CANCELSLOTMIGRATIONS"}

// reason says why the bundled suite leaves name out, or "" (not covered
// yet).
func reason(name string) string {
	if r, ok := reasons[name]; ok {
		return r
	}
	if sub, ok := strings.CutPrefix(name, "CLUSTER "); ok {
		for _, a := range clusterAdmin {
			if sub == a {
				return "cluster administration: changes the cluster's topology or a node's configuration"
			}
		}
	}
	return ""
}
