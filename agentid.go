package engram

import (
	"encoding/base32"
	"regexp"
	"strings"
)

// agentIDPattern is what an agent ID may look like: the IDs people give
// agents (slugs, emails, UUIDs) fit it.
var agentIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$`)

// ValidateAgentID returns an error matching [ErrInvalid] unless id is a
// valid agent ID: 1 to 128 ASCII letters, digits and the characters
// '.', '_', '@', '+' and '-', starting with a letter or digit. Slugs
// ("support-bot"), emails ("ada@example.com") and UUIDs qualify. IDs are
// case-sensitive: "Ada" and "ada" are two agents.
//
// An ID never becomes a path as it is: see [New] and [WithDir] for how
// an agent's directory is named.
func ValidateAgentID(id string) error {
	if !agentIDPattern.MatchString(id) {
		return invalid("agent ID", "%q must be 1 to 128 letters, digits and . _ @ + -, starting with a letter or digit", id)
	}
	return nil
}

// plainDirName is an agent ID that is its own directory name: lowercase,
// so that no two such names differ only in case (which a case-insensitive
// file system would confuse), and starting with a letter or digit, so
// that it is never "." or "..", hidden, or taken for an option.
var plainDirName = regexp.MustCompile(`^[a-z0-9][a-z0-9._@+-]{0,127}$`)

// dirNameEncoding writes the other IDs' directory names: lowercase
// base32 (the "extended hex" alphabet, digits then a to v), without
// padding. 128 bytes make 205 characters, within every file system's
// limit of 255.
var dirNameEncoding = base32.NewEncoding("0123456789abcdefghijklmnopqrstuv").WithPadding(base32.NoPadding)

// encodedDirPrefix starts an encoded directory name; no plain name can.
const encodedDirPrefix = "~"

// agentDirName returns the name of a valid agent ID's directory under a
// base directory: the ID itself when it is a plain name (every ID engram
// accepted before IDs grew is one), else "~" and the ID in base32. Two IDs
// never share a name, even on a case-insensitive file system.
func agentDirName(id string) string {
	if plainDirName.MatchString(id) {
		return id
	}
	return encodedDirPrefix + dirNameEncoding.EncodeToString([]byte(id))
}

// agentOfDirName returns the agent whose directory is named name, and
// false for a name that is no agent's.
func agentOfDirName(name string) (string, bool) {
	id := name
	if rest, ok := strings.CutPrefix(name, encodedDirPrefix); ok {
		b, err := dirNameEncoding.DecodeString(rest)
		if err != nil {
			return "", false
		}
		id = string(b)
	}
	if ValidateAgentID(id) != nil || agentDirName(id) != name {
		return "", false // not canonical: not a name engram made
	}
	return id, true
}
