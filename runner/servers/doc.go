// Package servers finds installed Redis and Valkey server binaries and spawns
// throwaway servers from them for the runner and for tests.
//
// Builds are installed by scripts/install-servers.sh into
// cacheDir()/servers/<family>-<version>/bin/<family>-server, each with a
// .stamp file written after a successful install; Installed and Find list and
// look them up, LookPath falls back to whatever server is on PATH.
//
// Start runs a server on 127.0.0.1 with a free port, a fresh temporary
// directory, no persistence and (where the build has it) the DEBUG command
// enabled, in its own process group, and waits until it answers PING. On
// Linux the server is killed if the process that started it dies, so no stray
// servers outlive a test binary. Stop ends it gracefully and removes its
// directory.
//
// Tests in other packages use ForTest, which starts one of the Pinned builds,
// stops it at cleanup, and fails (when the CI environment variable is set) or
// skips (otherwise) when the build is not installed.
package servers
