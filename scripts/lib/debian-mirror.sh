# detect_mirror prints the Debian mirror URL this machine's apt sources use
# for bookworm (deb822 .sources first, then one-line .list files), or
# $RESPCHECK_DEBIAN_MIRROR, or deb.debian.org. Sourced by install-servers.sh
# and install-clients.sh, which reach other suites through a private
# APT_CONFIG on the same mirror.
detect_mirror() {
	local m=""
	if [ -n "${RESPCHECK_DEBIAN_MIRROR:-}" ]; then echo "$RESPCHECK_DEBIAN_MIRROR"; return; fi
	# deb822 .sources: first URI of a stanza whose Suites include bookworm.
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
		/^[[:space:]]*#/ { next }
		/^[[:space:]]*$/ { if (suite && uri) { print uri; exit } ; suite = 0; uri = ""; next }
		tolower($1) == "uris:" { uri = $2 }
		tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == "bookworm") suite = 1 }
		END { if (suite && uri) print uri }' | head -n1)
	if [ -z "$m" ]; then
		# one-line format: deb [opts] URI bookworm components
		m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '
			$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
			              if ($(i + 1) == "bookworm") { print $i; exit } }' | head -n1)
	fi
	echo "${m:-http://deb.debian.org/debian}"
}

# write_apt_conf DIR WHO [EXTRA]: write DIR/apt.conf, a private apt
# configuration whose sources, lists and caches live under DIR (the system's
# dpkg status is read, never written); WHO names the script in a comment,
# EXTRA is appended as more configuration lines.
write_apt_conf() {
	cat >"$1/apt.conf" <<APT
// private apt configuration of respcheck's $2
Dir::Etc::SourceList "$1/sources.list";
Dir::Etc::SourceParts "$1/sources.list.d";
Dir::Etc::Preferences "$1/preferences";
Dir::Etc::PreferencesParts "$1/preferences.d";
Dir::State "$1/state";
Dir::State::Lists "$1/state/lists";
Dir::State::status "/var/lib/dpkg/status";
Dir::Cache "$1/cache";
Dir::Cache::archives "$1/cache/archives";
Acquire::Languages "none";
APT::Sandbox::User "root";
${3:-}
APT
}
