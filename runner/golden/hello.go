package golden

import (
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/respcheck/respcheck/resp"
)

// Hello opens a connection to addr (over TLS when tc is not nil), sends
// HELLO proto (with AUTH when password is set) and returns the reply's exact
// bytes, for the server file that respcheck serve answers handshakes from.
func Hello(addr string, tc *tls.Config, user, password string, proto int, timeout time.Duration) ([]byte, error) {
	d := net.Dialer{Timeout: timeout}
	var nc net.Conn
	var err error
	if tc != nil {
		nc, err = tls.DialWithDialer(&d, "tcp", addr, tc)
	} else {
		nc, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(timeout))
	args := []string{"HELLO", fmt.Sprint(proto)}
	if password != "" {
		if user == "" {
			user = "default"
		}
		args = append(args, "AUTH", user, password)
	}
	if _, err := nc.Write(resp.AppendCommandString(nil, args...)); err != nil {
		return nil, err
	}
	v, err := resp.NewReader(nc).Read()
	if err != nil {
		return nil, fmt.Errorf("HELLO %d: %w", proto, err)
	}
	return append([]byte(nil), v.Raw...), nil
}
