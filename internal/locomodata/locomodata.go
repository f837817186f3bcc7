// Package locomodata reads the LoCoMo data set (Maharana et al., ACL
// 2024; CC BY-NC 4.0) for engram's evaluation (internal/eval/locomo) and
// its peer benchmark (bench/peers), so that both ask the same questions of
// the same episodes: one episode per dialog turn, with its session's ID,
// and evidence read alike. The data are read from the shared data
// directory and never copied into the repository.
package locomodata

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Dataset is the data set: its conversations.
type Dataset []Conversation

// Conversation is one conversation: its sessions (as JSON, see
// Conversation.Sessions) and its questions.
type Conversation struct {
	SampleID string          `json:"sample_id"`
	Conv     json.RawMessage `json:"conversation"`
	QA       []QA            `json:"qa"`
}

// QA is a question, the IDs of its evidence turns (as the data set
// writes them; see NormalizeEvidence) and its category.
type QA struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
}

// Turn is one dialog turn.
type Turn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

// Session is one dated session of a conversation.
type Session struct {
	N     int
	Date  time.Time
	Label string // the date as the data set writes it
	Turns []Turn
}

// Load reads the data set at path. It returns an error for a file that
// cannot be read or parsed, or that holds no conversation.
func Load(path string) (Dataset, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Dataset
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(d) == 0 {
		return nil, fmt.Errorf("%s: no conversations", path)
	}
	return d, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// Sessions returns the conversation's sessions in order.
func (c Conversation) Sessions() ([]Session, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(c.Conv, &raw); err != nil {
		return nil, err
	}
	var out []Session
	for k, v := range raw {
		m := sessionKey.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		s := Session{N: n}
		if err := json.Unmarshal(v, &s.Turns); err != nil {
			return nil, fmt.Errorf("%s %s: %w", c.SampleID, k, err)
		}
		var label string
		if err := json.Unmarshal(raw[k+"_date_time"], &label); err != nil {
			return nil, fmt.Errorf("%s %s_date_time: %w", c.SampleID, k, err)
		}
		t, err := time.Parse("3:04 pm on 2 January, 2006", label)
		if err != nil {
			return nil, fmt.Errorf("%s %s_date_time: %w", c.SampleID, k, err)
		}
		s.Date, s.Label = t, t.Format("2 January 2006")
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out, nil
}

// Episode is a turn as engram logs it: the turn's ID, its text (see
// TurnText), its session's ID and when it was said. (This package imports
// no engram package: internal packages stand below the root.)
type Episode struct {
	ID, Content, SessionID string
	CreatedAt              time.Time
}

// Episodes turns a conversation into one episode per dialog turn. The text
// shows the session's date, the speaker, the turn and, for a shared photo,
// its caption.
func Episodes(sessions []Session) []Episode {
	var out []Episode
	for _, s := range sessions {
		for i, t := range s.Turns {
			text := TurnText(s, t)
			out = append(out, Episode{
				ID:        t.DiaID,
				Content:   text,
				SessionID: fmt.Sprintf("session-%d", s.N),
				CreatedAt: s.Date.Add(time.Duration(i) * time.Second),
			})
		}
	}
	return out
}

// TurnText is what an episode says: the session's date, the speaker and
// the turn, then the words, then the caption of a shared photo.
func TurnText(s Session, t Turn) string {
	text := fmt.Sprintf("[%s] %s (%s): %s", s.Label, t.Speaker, t.DiaID, t.Text)
	if t.Caption != "" {
		text += " [shared a photo: " + t.Caption + "]"
	}
	return text
}

var evidenceID = regexp.MustCompile(`^D:?(\d+):(\d+)$`)

// NormalizeEvidence splits evidence strings on ';', ',' and spaces, reads
// "D:11:26" as "D11:26", drops leading zeros and keeps only turns of the
// conversation.
func NormalizeEvidence(ev []string, turns map[string]bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range ev {
		for _, f := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
			m := evidenceID.FindStringSubmatch(f)
			if m == nil {
				continue
			}
			s, _ := strconv.Atoi(m[1])
			t, _ := strconv.Atoi(m[2])
			id := fmt.Sprintf("D%d:%d", s, t)
			if turns[id] && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}
