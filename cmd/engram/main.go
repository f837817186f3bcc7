// Command engram reads and writes an agent's engram memory from a shell:
// add memories and facts, search, recall, export, import, back up, check
// and forget. Run "engram --help" for the commands and their exit codes.
//
// Build it in a clone of the repository (Go 1.26; the module is not
// published yet):
//
//	go install ./cmd/engram
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// An interrupt or a SIGTERM cancels the command's context: a command
	// stops between transactions, a server shuts down gracefully.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
