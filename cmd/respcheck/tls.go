package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/spf13/pflag"
)

// tlsFlags are the TLS options of commands that reach a server.
type tlsFlags struct {
	enable     bool
	ca         string
	cert       string
	key        string
	serverName string
	insecure   bool
}

func (t *tlsFlags) register(fl *pflag.FlagSet) {
	fl.BoolVar(&t.enable, "tls", false, "use TLS with --addr (implied by rediss:// URLs)")
	fl.StringVar(&t.ca, "tls-ca", "", "verify the server with the CA certificates in this PEM `file`")
	fl.StringVar(&t.cert, "tls-cert", "", "client certificate PEM `file` (with --tls-key)")
	fl.StringVar(&t.key, "tls-key", "", "client private key PEM `file` (with --tls-cert)")
	fl.StringVar(&t.serverName, "tls-server-name", "", "expect this `name` in the server's certificate (default: the host)")
	fl.BoolVar(&t.insecure, "insecure", false, "do not verify the server's certificate")
}

// used reports whether any TLS flag was given.
func (t *tlsFlags) used() bool {
	return t.enable || t.ca != "" || t.cert != "" || t.key != "" || t.serverName != "" || t.insecure
}

// config builds the TLS configuration for host.
func (t *tlsFlags) config(host string) (*tls.Config, error) {
	c := &tls.Config{ServerName: host, InsecureSkipVerify: t.insecure, MinVersion: tls.VersionTLS12}
	if t.serverName != "" {
		c.ServerName = t.serverName
	}
	if t.ca != "" {
		pem, err := os.ReadFile(t.ca)
		if err != nil {
			return nil, fmt.Errorf("--tls-ca: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--tls-ca %s: no PEM certificate found", t.ca)
		}
		c.RootCAs = pool
	}
	if (t.cert == "") != (t.key == "") {
		return nil, fmt.Errorf("--tls-cert and --tls-key go together")
	}
	if t.cert != "" {
		pair, err := tls.LoadX509KeyPair(t.cert, t.key)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert/--tls-key: %v", err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
