package rules

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// factParts returns the subject, predicate and object the fact rule
// makes of the match loc (as FindStringSubmatchIndex gives it) in
// sentence; user is the user entity.
func factParts(rule *Rule, re *regexp.Regexp, sentence string, loc []int, user string) (subject, predicate, object string) {
	var out [3]string
	for i, part := range [3]struct{ group, template string }{
		{"subject", rule.Subject}, {"predicate", rule.Predicate}, {"object", rule.Object},
	} {
		var s string
		if part.template != "" {
			s = string(re.ExpandString(nil, part.template, sentence, loc))
		} else if g := re.SubexpIndex(part.group); g > 0 && loc[2*g] >= 0 {
			s = sentence[loc[2*g]:loc[2*g+1]]
		}
		out[i] = strings.TrimSpace(strings.TrimRight(s, " \t,;:"))
	}
	if out[0] == "" {
		out[0] = user
	}
	return UserEntity(out[0], user), out[1], UserEntity(out[2], user)
}

// UserEntity returns user for a part that is a first-person pronoun
// (I, me, my, myself, mine, in any case, around spaces), and part
// otherwise.
func UserEntity(part, user string) string {
	switch strings.ToLower(strings.TrimSpace(part)) {
	case "i", "me", "my", "myself", "mine":
		return user
	}
	return part
}

// TemplateRefs returns the groups a template refers to, as
// [regexp.Regexp.Expand] reads it: $name, ${name} or $$ for a dollar
// sign. A $ that starts none of them, which Expand would keep as it is,
// is an error (a plain one, saying at which byte): it is most likely a
// typing slip.
func TemplateRefs(template string) ([]string, error) {
	var refs []string
	for rest := template; ; {
		i := strings.IndexByte(rest, '$')
		if i < 0 {
			return refs, nil
		}
		rest = rest[i+1:]
		if strings.HasPrefix(rest, "$") {
			rest = rest[1:]
			continue
		}
		name, after, ok := templateName(rest)
		if !ok {
			return nil, fmt.Errorf("a $ at byte %d starts no $name or ${name} (write $$ for a dollar sign)", len(template)-len(rest)-1)
		}
		refs, rest = append(refs, name), after
	}
}

// templateName reads the name after a $, as Expand does: letters, digits
// and underscores, as many as there are, or the same between braces.
func templateName(s string) (name, rest string, ok bool) {
	brace := strings.HasPrefix(s, "{")
	if brace {
		s = s[1:]
	}
	i := 0
	for i < len(s) {
		c, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '_' {
			break
		}
		i += size
	}
	if i == 0 {
		return "", "", false
	}
	name = s[:i]
	if brace {
		if i >= len(s) || s[i] != '}' {
			return "", "", false
		}
		i++
	}
	return name, s[i:], true
}

// HasGroup reports whether re has the group a template reference names:
// a number (no leading zero; 0 is the whole match) or a name.
func HasGroup(re *regexp.Regexp, ref string) bool {
	num := 0
	for i := 0; i < len(ref); i++ {
		if ref[i] < '0' || ref[i] > '9' || num >= 1e8 {
			num = -1
			break
		}
		num = num*10 + int(ref[i]-'0')
	}
	if num >= 0 && (ref[0] != '0' || len(ref) == 1) {
		return num <= re.NumSubexp()
	}
	return re.SubexpIndex(ref) >= 0
}

// GroupNames returns the names of re's named groups, comma-separated, or
// "none".
func GroupNames(re *regexp.Regexp) string {
	var names []string
	for _, n := range re.SubexpNames() {
		if n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
