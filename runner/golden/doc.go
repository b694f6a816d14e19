// Package golden records the exact bytes a server sends for every step of
// the cases (goldens), compares later runs with them, and lists the
// differences between two recordings. respcheck record, run --golden, diff
// and serve (package runner/golden/replay) are built on it.
//
// # Layout
//
// A golden directory holds the recording of one server build, such as
// testdata/golden/redis-7.0.15: one DIR/<case file base>.golden per case
// file, and DIR/_server.golden with the server's identity and its replies to
// HELLO 2 and HELLO 3 (what respcheck serve answers a client's handshake
// with).
//
// # Format
//
// Line-oriented text, made to be read in a diff. Every byte string is
// written with resp.Escape (printable ASCII as is, \r \n \t \" \\ and \xNN),
// one per line, so CR LF is never normalised by an editor or by git. Lines
// starting with # are comments.
//
//	golden 1                                  format version
//	file "suite/strings.yaml"                 the case file, as loaded
//	sha256 2054c973...                        cases.File.Hash when recorded
//	server redis 7.0.15
//	source "recorded"                         or "transcribed ..." (hand-made)
//
//	case "SET then GET" resp2 pass            name, protocol, status [reason]
//	  sha256 9f86d081...                      cases.Case.Hash when recorded
//	  prefix "rc:{3d371a44}:"                 the case's key prefix when first recorded
//	  step 0 send line=6                      index, action, [conn=NAME]
//	    sent "*3\r\n$3\r\nSET\r\n$17\r\nrc:{________}:key\r\n$1\r\nv\r\n"
//	    reply "+OK\r\n"
//	  step 1 send line=8 volatile             [async] [volatile] [topology]
//	    sent "*2\r\n$9\r\nCLIENT ID..."
//	    push ">3\r\n..."                      out-of-band pushes, in order
//	    reply ":7\r\n"
//
// Cases come in case file order, RESP2 before RESP3; steps in step order,
// only those that ran (a failed or known-failing case stops at its failure;
// a skipped case has none). Every occurrence of the case's key prefix is
// written as Placeholder (same length, so lengths and offsets hold): a
// golden compares with a run of any run id.
//
// Blobs (sent commands, replies, pushes) over InlineMax bytes are written
// as size=N sha256=HEX head "first headLen bytes" instead of their bytes:
// the suite sends and reads 1 MiB values, whose escaped text would be 4 MiB
// of noise per step. A difference inside such a blob is reported with its
// exact offset when it lies in the head, else as a length or hash mismatch.
//
// # Volatile steps
//
// A step is compared by its case expectation only, never byte for byte,
// when (Volatile) the step says volatile: true, or its expectation is
// loose by nature (any: true, or a typed value with {any}, a bare {type},
// {match} or an unordered collection); or when the recording marked it
// volatile: respcheck record runs the suite twice, each time on a fresh
// server, and marks the steps whose replies (or sent bytes: a capture of
// a reply that differed) differed. Every other step,
// including steps without an expectation, must match the recorded bytes.
//
// # Clusters
//
// A recording of a cluster (respcheck record --cluster N, or --addr of a
// cluster node) says "topology cluster NxR" after its server line (in
// _server.golden too), and its bytes hold placeholders for what differs
// from one cluster of the build and shape to the next: node ids, node
// addresses and ports, and the case's slot, each named after the node's
// place relative to the case's slot ({node-id:owner}___…, {addr:other1},
// {port:owner.r0}, {slot}); cluster.go lists every replacement and where
// it applies. A live reply on a cluster is normalised the same way before
// it is compared. A step line ends with "topology" when its expectation
// differs between a cluster and a standalone server (byTopology): such
// steps, and cases one side skipped for its topology, are not compared
// between a cluster's recording and a standalone one (Checker.ByTopology,
// DiffExcluding).
//
// # Staleness
//
// A golden whose sha256 is not the case file's current hash is stale: the
// case file changed after the recording. Only the cases that changed
// (their cases.Case.Hash, which ignores comments and layout, differs from
// the case's recorded sha256) or were added are not compared; the file's
// other cases are compared as recorded (a golden made before cases had
// hashes is stale as a whole). respcheck run --golden reports which cases
// are stale (exit status 2 when nothing else failed) rather than
// reporting server failures, with the exact respcheck record command that
// records the directory again (Dir.RecordCommand): the target it was
// recorded on (--server BUILD, or the --addr, -u or --server-bin flags
// that record was given, kept as Server.Target without a password),
// --proto when it holds one protocol only, and the
// case files its goldens were recorded from, as their file lines name them
// (paths relative to where record ran; files of the bundled suite, which
// record reads from respcheck itself, by --run, or not at all when they are
// the whole suite). Each recorded golden's header comment names the command
// for its own file. Which cases --run or --tags chose when recording is not
// kept: the command records all of the files' cases.
//
// Recording again does not churn: a golden whose only changes are in
// volatile steps is kept as it is, a case keeps the key prefix of its
// first recording (Merge), and _server.golden is kept when its HELLO
// replies differ only in their connection id (Server.Equivalent).
//
// # Differences
//
// Diff lists the differences between two golden directories (respcheck
// diff); WriteReport prints them for a reviewer: counts per suite file
// (Summarize), the steps whose bytes differ in full, then one line per case
// that differs only in its status or in the steps one recording has.
package golden
