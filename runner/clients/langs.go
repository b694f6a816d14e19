package clients

import (
	"os"
	"path/filepath"
)

// hiredisVersion is the hiredis of the Redis source package that
// scripts/install-clients.sh builds (deps/hiredis of Redis 8.6.3).
const hiredisVersion = "1.2.0"

// rubyBin and phpBin are Debian's interpreters, which see Debian's
// ruby-redis and php-redis.
const (
	rubyBin = "/usr/bin/ruby"
	phpBin  = "/usr/bin/php"
)

// hiredisAdapter is the path of the C adapter that scripts/install-clients.sh
// compiles against hiredis.
func hiredisAdapter() string {
	return filepath.Join(clientsCache(), "hiredis-"+hiredisVersion, "bin", "hiredis-adapter")
}

// commaLocale is the locale of the hiredis configuration that honours its
// user's locale: German, whose decimal separator is a comma.
const commaLocale = "de_DE.UTF-8"

// localeDir is where scripts/install-clients.sh compiles commaLocale
// (localedef), for LOCPATH: no system locale is installed.
func localeDir() string { return filepath.Join(clientsCache(), "locale") }

// hiredisLocaleLabel is the configuration of hiredis run in commaLocale.
var hiredisLocaleLabel = "hiredis-" + hiredisVersion + "[LC_ALL=" + commaLocale + "]"

// langAdapters returns the adapters of hiredis (C), Ruby's redis gem and
// PHP's phpredis whose runtimes are installed, and notes about the others.
func langAdapters(dir string) ([]*Adapter, []string) {
	var as []*Adapter
	var notes []string
	if bin := hiredisAdapter(); fileExists(bin) {
		as = append(as, &Adapter{Name: "hiredis", Cmd: []string{bin}, Family: "hiredis"})
		if fileExists(filepath.Join(localeDir(), commaLocale, "LC_NUMERIC")) {
			as = append(as, &Adapter{Name: hiredisLocaleLabel, Cmd: []string{bin}, Label: hiredisLocaleLabel,
				Env: []string{"RESPCHECK_LOCALE=" + commaLocale, "LC_ALL=" + commaLocale, "LOCPATH=" + localeDir()}})
		} else {
			notes = append(notes, hiredisLocaleLabel+": locale "+commaLocale+" not compiled into "+localeDir()+" (run scripts/install-clients.sh)")
		}
	} else {
		notes = append(notes, "hiredis adapter: "+bin+" missing (run scripts/install-clients.sh)")
	}
	if fileExists(rubyBin) {
		// -E UTF-8: the gem tags blob strings with the default external
		// encoding, which would otherwise follow the locale.
		as = append(as, &Adapter{Name: "ruby redis", Family: "redis-rb", Cmd: []string{rubyBin, "-E", "UTF-8", filepath.Join(dir, "ruby", "adapter.rb")}})
	} else {
		notes = append(notes, "ruby adapter: "+rubyBin+" missing (run scripts/install-clients.sh)")
	}
	if fileExists(phpBin) {
		as = append(as, &Adapter{Name: "phpredis", Family: "phpredis", Cmd: []string{phpBin, filepath.Join(dir, "php", "adapter.php")}})
	} else {
		notes = append(notes, "php adapter: "+phpBin+" missing (run scripts/install-clients.sh)")
	}
	return as, notes
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
