// Shared by the Go repros: go run FILE.go lib.go HOST:PORT (see README.md).
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mediocregopher/radix/v4"
)

var ctx = context.Background()

// addr is the server the repro talks to, its one argument.
func addr() string {
	if len(os.Args) < 2 {
		fmt.Println("usage: go run FILE.go lib.go HOST:PORT")
		os.Exit(2)
	}
	return os.Args[1]
}

// must ends the repro, printing THROWN, when a connection cannot be made.
func must[T any](c T, err error) T {
	if err != nil {
		fmt.Println("THROWN:", err)
		os.Exit(0)
	}
	return c
}

// keepGoing makes step go on after a HANG instead of ending the repro (for
// a repro that shows several libraries in turn; the hung call is left behind).
var keepGoing bool

// step is one library call with a 2 s timer; it prints what the call gave as
// DECODED (shown by show), THROWN or HANG.
func step(label string, call func() (interface{}, error)) {
	type res struct {
		v   interface{}
		err error
	}
	done := make(chan res, 1)
	go func() { v, err := call(); done <- res{v, err} }()
	select {
	case r := <-done:
		if r.err != nil {
			fmt.Println(label, "THROWN:", r.err)
		} else {
			fmt.Printf("%s DECODED: %s\n", label, show(r.v))
		}
	case <-time.After(2 * time.Second):
		fmt.Println(label, "HANG: no result after 2s")
		if !keepGoing {
			os.Exit(0)
		}
	}
}

// show prints a decoded value with blob strings quoted, arrays in brackets.
func show(v interface{}) string {
	switch x := v.(type) {
	case []byte:
		return fmt.Sprintf("%q", x)
	case []interface{}:
		s := "["
		for i, e := range x {
			if i > 0 {
				s += " "
			}
			s += show(e)
		}
		return s + "]"
	}
	return fmt.Sprintf("%#v", v)
}

// radixDial connects radix v4 speaking proto ("" for RESP2, "3").
func radixDial(proto string) radix.Conn {
	return must((radix.Dialer{Protocol: proto}).Dial(ctx, "tcp", addr()))
}

// radixDo is one radix call, interface{} as its receiver, through step.
func radixDo(c radix.Conn, label string, cmd string, args ...string) {
	step(label, func() (interface{}, error) {
		var v interface{}
		err := c.Do(ctx, radix.Cmd(&v, cmd, args...))
		return v, err
	})
}
