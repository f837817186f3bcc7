package modelapi

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Invalid names a provider's setting or a call's argument that cannot
// work, and says why. Its fields are those of engram.InvalidError, which
// this package cannot name: the public provider packages convert an
// *Invalid to an *engram.InvalidError, which matches engram.ErrInvalid.
// (The root's deprecated types do not check their settings, as before.)
type Invalid struct {
	Field  string // "BaseURL", "ModelName", "Dims", "texts[3]", "Prompt.Schema", …
	Reason string
}

// CheckEmbedder returns what is wrong with an embedder's settings or with
// the texts it is asked to embed, or nil: a base URL that is not an
// absolute http or https URL, no model, dims ≤ 0, or a text that is empty
// or only white space (which no model embeds usefully, and which engram's
// own embedder refuses too).
func CheckEmbedder(baseURL, model string, dims int, texts []string) *Invalid {
	if bad := checkAPI(baseURL, "ModelName", model); bad != nil {
		return bad
	}
	if dims <= 0 {
		return &Invalid{"Dims", fmt.Sprintf("%d is not a number of dimensions", dims)}
	}
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return &Invalid{fmt.Sprintf("texts[%d]", i), "is empty"}
		}
	}
	return nil
}

// CheckChat returns what is wrong with a chat's settings or with the
// prompt it is given, or nil: a base URL that is not an absolute http or
// https URL, no model, or a Schema that is not a JSON object.
func CheckChat(baseURL, model string, p Prompt) *Invalid {
	if bad := checkAPI(baseURL, "Model", model); bad != nil {
		return bad
	}
	if p.Schema != nil {
		var schema map[string]json.RawMessage
		if err := json.Unmarshal(p.Schema, &schema); err != nil || schema == nil {
			return &Invalid{"Prompt.Schema", fmt.Sprintf("%.40q is not a JSON object", p.Schema)}
		}
	}
	return nil
}

func checkAPI(baseURL, modelField, model string) *Invalid {
	if _, ok := parseHTTP(baseURL); !ok {
		return &Invalid{"BaseURL", fmt.Sprintf("%q is not an absolute http or https URL", redact(baseURL))}
	}
	if strings.TrimSpace(model) == "" {
		return &Invalid{modelField, "is empty"}
	}
	return nil
}
