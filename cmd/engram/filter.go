package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/memview"
)

// Scopes and filters on the command line: the commands that read memories
// (search, recall, context, list, export) take one filter, engram.Filter,
// as flags named by the HTTP API's words in kebab-case; the commands that
// add memories take a user, a session and metadata.

// metaExample is what --metadata's help and errors show of a condition.
const metaExample = `{"key":"lang","eq":"go"}`

// filterFlags are the flags of a filter: --user-id, --session-id, --type,
// --tags, --since, --until and --metadata, a condition tree in the JSON of
// the HTTP API's filter (read by memview.ParseMeta, so that both take the
// same conditions).
type filterFlags struct {
	flags                               *pflag.FlagSet
	user, session, since, until, metaJS string
	types, tags                         []string
}

// add gives cmd the filter's flags; typeUsage is --type's help.
func (ff *filterFlags) add(cmd *cobra.Command, typeUsage string) {
	f := cmd.Flags()
	ff.flags = f
	f.StringVar(&ff.user, "user-id", "", "only the memories of this user")
	f.StringVar(&ff.session, "session-id", "", "only the memories of this session")
	f.StringSliceVar(&ff.types, "type", nil, typeUsage)
	f.StringSliceVar(&ff.tags, "tags", nil, "only memories with one of these tags, comma-separated")
	f.StringVar(&ff.since, "since", "", "only memories created since (2026-05-01, 7d, ...)")
	f.StringVar(&ff.until, "until", "", "only memories created before")
	f.StringVar(&ff.metaJS, "metadata", "", "only memories whose metadata meets this JSON condition: "+metaExample+
		"; ne, in, gt, gte, lt, lte, exists; and, or, not")
}

// filter returns the engram.Filter the flags say, nil when they filter
// nothing, or a usage error naming the flag at fault. A --user-id,
// --session-id or --metadata given empty is refused rather than read as
// no filter, so that an unset shell variable does not widen a command to
// every user's memories.
func (ff *filterFlags) filter() (*engram.Filter, error) {
	for _, name := range []string{"user-id", "session-id", "metadata"} {
		if ff.flags.Changed(name) && ff.flags.Lookup(name).Value.String() == "" {
			return nil, usagef("--%s is empty: give a value, or leave the flag out to filter by none", name)
		}
	}
	mf := memview.Filter{User: ff.user, Session: ff.session, Tags: ff.tags}
	var err error
	if mf.Types, err = parseKinds("--type", ff.types); err != nil {
		return nil, err
	}
	if mf.Since, err = optTime("--since", ff.since); err != nil {
		return nil, err
	}
	if mf.Until, err = optTime("--until", ff.until); err != nil {
		return nil, err
	}
	if ff.metaJS != "" {
		if !json.Valid([]byte(ff.metaJS)) {
			return nil, usagef("--metadata: want a JSON condition tree, such as %s, not %q", metaExample, ff.metaJS)
		}
		mf.Metadata = json.RawMessage(ff.metaJS)
	}
	f, err := mf.Engram("")
	if err != nil {
		return nil, filterError(err)
	}
	return f, nil
}

// filterFlagOf is the flag of each of memview.Filter's JSON names.
var filterFlagOf = map[string]string{"user_id": "--user-id", "session_id": "--session-id", "types": "--type",
	"tags": "--tags", "since": "--since", "until": "--until", "metadata": "--metadata"}

// filterError returns an invalid-input error about a filter as a usage
// error naming its flag: memview's, named by JSON path ("metadata.and[1].gt"
// is "--metadata: and[1].gt: …"), or engram's, named by Go field
// ("Filter.Tags", checked against the agent's limits). Any other error is
// returned as it is.
func filterError(err error) error {
	var ie *engram.InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	field := ie.Field
	if rest, ok := strings.CutPrefix(field, "Filter."); ok {
		name, tail := splitField(rest)
		jname, ok := memview.FilterFields[name]
		if !ok {
			return err
		}
		field = jname + tail
	}
	name, tail := splitField(field)
	flag, ok := filterFlagOf[name]
	if !ok {
		return err
	}
	switch {
	case strings.HasPrefix(tail, "["): // a value of a list: "--tags[0]"
		return usagef("%s%s: %s", flag, tail, ie.Reason)
	case tail != "": // a part of the condition: "--metadata: and[1].gt"
		return usagef("%s: %s: %s", flag, tail[1:], ie.Reason)
	}
	return usagef("%s: %s", flag, ie.Reason)
}

// splitField splits a field's path into its first name and the rest:
// "metadata.and[1]" is "metadata" and ".and[1]", "types[0]" is "types"
// and "[0]".
func splitField(field string) (string, string) {
	i := strings.IndexAny(field, ".[")
	if i < 0 {
		return field, ""
	}
	return field[:i], field[i:]
}

// scopeFlagOf is the flag of each field of a memory's scope, by its Go
// name.
var scopeFlagOf = map[string]string{"UserID": "--user-id", "SessionID": "--session-id", "Metadata": "--metadata"}

// scopeError returns an invalid-input error about a stored memory's user,
// session or metadata ("UserID", "entry.Metadata.k") as a usage error
// naming its flag; any other error is returned as it is.
func scopeError(err error) error {
	var ie *engram.InvalidError
	if !errors.As(err, &ie) {
		return err
	}
	for _, name := range []string{"UserID", "SessionID", "Metadata"} {
		i := strings.Index(ie.Field, name)
		if i < 0 || i > 0 && ie.Field[i-1] != '.' {
			continue
		}
		rest := ie.Field[i+len(name):]
		if rest != "" && rest[0] != '.' && rest[0] != '[' {
			continue
		}
		if rest = strings.TrimPrefix(rest, "."); rest != "" {
			return usagef("%s: %s: %s", scopeFlagOf[name], rest, ie.Reason)
		}
		return usagef("%s: %s", scopeFlagOf[name], ie.Reason)
	}
	return err
}

// anyMetaValue is the flag of a JSON object of metadata with values of
// any JSON type (a semantic entry's, a procedure's): each --metadata
// adds its keys, the later value of a key winning.
type anyMetaValue struct{ m *map[string]any }

func (v anyMetaValue) String() string {
	if len(*v.m) == 0 {
		return ""
	}
	b, _ := json.Marshal(*v.m)
	return string(b)
}

func (v anyMetaValue) Set(s string) error {
	var obj map[string]any
	if err := json.Unmarshal([]byte(s), &obj); err != nil || obj == nil {
		return fmt.Errorf(`want a JSON object, such as {"lang":"go","stars":3}`)
	}
	if *v.m == nil {
		*v.m = map[string]any{}
	}
	maps.Copy(*v.m, obj)
	return nil
}

func (anyMetaValue) Type() string { return "json" }

// stringMetaValue is the flag of metadata with string values (an
// episode's): a JSON object of strings, or key=value pairs,
// comma-separated. Each --metadata adds its keys, the later value of a
// key winning.
type stringMetaValue struct{ m *map[string]string }

func (v stringMetaValue) String() string {
	if len(*v.m) == 0 {
		return ""
	}
	b, _ := json.Marshal(*v.m)
	return string(b)
}

func (v stringMetaValue) Set(s string) error {
	obj := map[string]string{}
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		if err := json.Unmarshal([]byte(s), &obj); err != nil {
			return fmt.Errorf(`want a JSON object of strings, such as {"lang":"go"}, or key=value pairs`)
		}
	} else {
		// Read as pflag reads a map of strings: a line of CSV, so that a
		// value may hold a comma in quotes.
		pairs, err := csv.NewReader(strings.NewReader(s)).Read()
		if err != nil {
			return fmt.Errorf("want key=value pairs, comma-separated, or a JSON object of strings: %w", err)
		}
		for _, pair := range pairs {
			k, val, ok := strings.Cut(pair, "=")
			if !ok {
				return fmt.Errorf("%q is not key=value: want key=value pairs, comma-separated, or a JSON object of strings", pair)
			}
			obj[k] = val
		}
	}
	if *v.m == nil {
		*v.m = map[string]string{}
	}
	maps.Copy(*v.m, obj)
	return nil
}

func (stringMetaValue) Type() string { return "json|key=value" }

// filterHelp is what the help of a command that takes a filter says of it.
const filterHelp = `--user-id and --session-id keep the memories of one user or one session of
the agent (semantic entries, episodes and procedures have both, snapshots a
session; the other kinds are left out); --type keeps some kinds, --tags
those with one of the tags, --since and --until those created in [since,
until); --metadata keeps those whose metadata meets a condition, in the
JSON of the HTTP API's filter:

  {"key":"lang","eq":"go"}            and ne, gt, gte, lt, lte
  {"key":"lang","in":["go","rust"]}
  {"key":"lang","exists":true}        false: the key is missing
  {"and":[...]}, {"or":[...]}, {"not":{...}}

Every flag given must hold. A bad value exits 2, naming its flag.`
