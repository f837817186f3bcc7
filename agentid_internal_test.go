package engram

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzAgentDirName: a valid agent ID's directory name is one safe path
// element that names it alone (also ignoring case), and a directory name
// is taken for an agent's only when it is that agent's name.
func FuzzAgentDirName(f *testing.F) {
	for _, s := range []string{"support-bot", "ada@example.com", "Ada", "ada", "7F9C2BA4-E88F-11EE-8C90-0242AC120002",
		"~c5h66", "~zzzz", "..", ".", "a/b", "~", "", strings.Repeat("Z", 128), "a+b.c_d"} {
		f.Add(s, "ada")
	}
	f.Fuzz(func(t *testing.T, s, other string) {
		if id, ok := agentOfDirName(s); ok {
			if ValidateAgentID(id) != nil || agentDirName(id) != s {
				t.Fatalf("%q taken for agent %q, whose directory is %q", s, id, agentDirName(id))
			}
		}
		if ValidateAgentID(s) != nil {
			return
		}
		name := agentDirName(s)
		if name == "" || name == "." || name == ".." || len(name) > 255 || strings.ContainsAny(name, `/\`) || filepath.Base(name) != name {
			t.Fatalf("agent %q gets directory %q", s, name)
		}
		if id, ok := agentOfDirName(name); !ok || id != s {
			t.Fatalf("directory %q of %q gives back %q, %v", name, s, id, ok)
		}
		if ValidateAgentID(other) == nil && other != s && strings.EqualFold(agentDirName(other), name) {
			t.Fatalf("%q and %q share directory %q ignoring case", s, other, name)
		}
	})
}
