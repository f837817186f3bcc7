// Command engram reads and writes an agent's engram memory from a shell:
// add memories and facts, search, recall, export, import, back up, check
// and forget. Run "engram --help" for the commands and their exit codes.
//
//	go install github.com/engram-go/engram/cmd/engram@latest
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
