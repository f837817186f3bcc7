package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/vocab"
)

// TestCommandLineUsesTheWords: every flag of every command, and every
// other name of a flag, is a word of internal/vocab in kebab-case, or an
// alias beside its word; the commands of add are the kinds' own names,
// their aliases names engram.ParseMemoryType takes for the same kind.
func TestCommandLineUsesTheWords(t *testing.T) {
	var bad []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var names []string
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		for _, pair := range strings.Split(c.Annotations[flagAliases], ",") {
			if from, to, ok := strings.Cut(pair, "="); ok {
				names = append(names, from)
				if c.LocalFlags().Lookup(to) == nil {
					bad = append(bad, fmt.Sprintf("cli: %s: --%s is an alias of --%s, which it does not have", c.CommandPath(), from, to))
				}
			}
		}
		for _, v := range vocab.Check("cli", names) {
			if v.Known {
				bad = append(bad, fmt.Sprintf("cli: %s: --%s is an alias of --%s, which is not beside it: use --%s", c.CommandPath(), v.Name, v.Canonical, v.Canonical))
			} else {
				bad = append(bad, fmt.Sprintf("cli: %s: --%s is not a word of internal/vocab: use the word there, or add it", c.CommandPath(), v.Name))
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	root := (&app{}).rootCmd()
	walk(root)
	add, _, err := root.Find([]string{"add"})
	assert.NoError(t, err)
	for _, c := range add.Commands() {
		kind := engram.MemoryType(c.Name())
		if kind.Validate() != nil {
			bad = append(bad, fmt.Sprintf("cli: engram add %s: %q is not a kind's own name (%v)", c.Name(), c.Name(), engram.MemoryTypes()))
			continue
		}
		for _, a := range c.Aliases {
			if t, err := engram.ParseMemoryType(a); err != nil || t != kind {
				bad = append(bad, fmt.Sprintf("cli: engram add %s: its alias %q is not a name of %s", c.Name(), a, kind))
			}
		}
	}
	assert.Empty(t, bad, "the command line's words:\n%s", strings.Join(bad, "\n"))
}

// TestCommandLineBadKindListsTheKinds: a kind that is none, wherever a
// command takes one, exits 2 with a message that lists the kinds.
func TestCommandLineBadKindListsTheKinds(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--dir", dir, "add", "semantic", "x"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("add exited %d: %s", code, errb.String())
	}
	for _, args := range [][]string{
		{"list", "--type", "bogus"},
		{"list", "--kind", "semantic,bogus"},
		{"search", "x", "--type", "bogus"},
		{"search", "x", "--types", "episode,bogus"},
		{"add", "bogus", "x"},
	} {
		out.Reset()
		errb.Reset()
		code := run(context.Background(), append([]string{"--dir", dir}, args...), nil, &out, &errb)
		assert.Equal(t, exitUsage, code, "%v: %s", args, errb.String())
		for _, k := range []string{"semantic", "episodic", "procedural", "fact"} {
			assert.Contains(t, errb.String(), k, "%v: the message lists the kinds", args)
		}
	}
}
