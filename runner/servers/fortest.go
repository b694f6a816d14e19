package servers

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// TB is the part of testing.TB that ForTest and its kin use: a *testing.T
// or *testing.B is one (this package does not import testing).
type TB interface {
	Helper()
	Context() context.Context
	Cleanup(func())
	TempDir() string
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
	Skipf(format string, args ...any)
}

// InCI reports whether the CI environment variable is set to something
// other than "", "0", "false" or "no": tests then fail where a build or a
// client is missing instead of skipping.
func InCI() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("CI"))) {
	case "", "0", "false", "no":
		return false
	}
	return true
}

// requireBuild finds the named build; when it is missing the test fails
// loudly under CI and is skipped otherwise, naming the install command.
func requireBuild(t TB, name string) Build {
	t.Helper()
	b, err := Find(name)
	if err == nil {
		return b
	}
	if InCI() {
		t.Fatalf("CI is set and a required server build is missing: %v", err)
	}
	t.Skipf("skipped: %v", err)
	return Build{}
}

// ForTest starts the named build (one of Pinned, such as "redis-8.6.3") for
// a test and stops it in t.Cleanup. When the build is not installed the
// test fails if the CI environment variable is set, and is skipped
// otherwise; either way the message names the install command.
func ForTest(t TB, name string) *Server {
	t.Helper()
	return ForTestWith(t, name, Options{})
}

// ForTestWith is ForTest with start options, e.g. ExtraArgs for a password
// or a TLS port.
func ForTestWith(t TB, name string, opt Options) *Server {
	t.Helper()
	b := requireBuild(t, name)
	s, err := Start(t.Context(), b, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("%v", err)
		}
	})
	return s
}

// TestCerts makes, in a temporary directory of t, a CA and a certificate
// signed by it for 127.0.0.1 (and the name redis.test), valid for an hour
// either side of now, for servers and for clients (cluster nodes present
// it to each other on the TLS cluster bus), and returns the PEM files.
func TestCerts(t TB) TLSFiles {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "respcheck test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"redis.test"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(srvKey)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return TLSFiles{CA: write("ca.pem", "CERTIFICATE", caDER), Cert: write("server.pem", "CERTIFICATE", srvDER),
		Key: write("server.key", "EC PRIVATE KEY", keyDER)}
}
