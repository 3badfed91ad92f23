package cli

import (
	"fmt"
	"io"
)

// printer writes formatted text and keeps the first write error, so a view reports a
// failed write once instead of checking every line.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// result returns the first write error, wrapped with what was written.
func (p *printer) result(what string) error {
	if p.err != nil {
		return fmt.Errorf("write %s: %w", what, p.err)
	}
	return nil
}

// say prints one line of a command's result to stdout.
func (o *Options) say(format string, args ...any) error {
	p := &printer{w: o.Out}
	p.printf(format+"\n", args...)
	return p.result("output")
}
