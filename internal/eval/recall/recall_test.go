package main

import (
	"context"
	"strings"
	"testing"

	"github.com/engram-go/engram"
)

// dataPath is the recall set, from this directory.
const dataPath = "../../../testdata/recall/assistant.json"

// counts are what testdata/recall/README.md says the set holds.
type counts struct {
	users, facts, sessions, episodes, procedures, snapshots, questions int
}

var stated = counts{users: 3, facts: 75, sessions: 15, episodes: 143, procedures: 12, snapshots: 11, questions: 75}

// statedByKind are the questions of each kind the README states.
var statedByKind = map[kind]int{kindFact: 33, kindEpisode: 19, kindProcedure: 12, kindSnapshot: 11}

func TestDataset(t *testing.T) {
	d, err := load(dataPath) // validates IDs and answers
	if err != nil {
		t.Fatal(err)
	}
	var got counts
	byKind := map[kind]int{}
	for _, u := range d.Users {
		got.users++
		got.facts += len(u.Facts)
		got.sessions += len(u.Sessions)
		got.procedures += len(u.Procedures)
		got.snapshots += len(u.Snapshots)
		got.questions += len(u.Questions)
		between := func(what string, n, lo, hi int) {
			if n < lo || n > hi {
				t.Errorf("%s: %d %s, want %d to %d", u.Agent, n, what, lo, hi)
			}
		}
		between("facts", len(u.Facts), 20, 30)
		between("chat sessions", len(u.Sessions), 4, 6)
		for _, s := range u.Sessions {
			got.episodes += len(s.Episodes)
			between(s.ID+" episodes", len(s.Episodes), 6, 12)
		}
		between("procedures", len(u.Procedures), 3, 6)
		between("snapshots", len(u.Snapshots), 2, 4)
		if len(u.Questions) < 20 {
			t.Errorf("%s: %d questions, want at least 20", u.Agent, len(u.Questions))
		}
		for _, q := range u.Questions {
			byKind[u.kindOf(q)]++
			if !strings.HasPrefix(q.ID, u.Agent+"-") {
				t.Errorf("question %s of %s is not named after its user", q.ID, u.Agent)
			}
		}
		for id := range u.memories() {
			if !strings.HasPrefix(id, u.Agent+"-") {
				t.Errorf("memory %s of %s is not named after its user", id, u.Agent)
			}
		}
	}
	if got != stated {
		t.Errorf("counts = %+v, README states %+v", got, stated)
	}
	if got.questions < 60 {
		t.Errorf("%d questions, want at least 60", got.questions)
	}
	for _, k := range kinds {
		if byKind[k] != statedByKind[k] {
			t.Errorf("%d %s questions, README states %d", byKind[k], k, statedByKind[k])
		}
		if 10*byKind[k] < got.questions {
			t.Errorf("%d of %d questions are answered by a %s: want at least 10%%", byKind[k], got.questions, k)
		}
	}
}

func TestValidate(t *testing.T) {
	d, err := load(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	ada, ben := d.Users[0], d.Users[1]
	for _, tc := range []struct {
		name  string
		spoil func(d *dataset)
		want  string
	}{
		{"another user's answer", func(d *dataset) {
			d.Users[0].Questions = append([]question{{ID: "ada-qx", Question: "?", Answers: []string{ben.Facts[0].ID}}}, ada.Questions...)
		}, "is not one of ada's memories"},
		{"unknown answer", func(d *dataset) {
			d.Users[0].Questions = append([]question{{ID: "ada-qx", Question: "?", Answers: []string{"ada-nothing"}}}, ada.Questions...)
		}, "is not one of ada's memories"},
		{"duplicate ID", func(d *dataset) {
			d.Users[1].Facts = append([]fact{{ID: ada.Facts[0].ID, Content: "x", Importance: 0.5, Time: ada.Facts[0].Time}}, ben.Facts...)
		}, "is not unique"},
		{"no answers", func(d *dataset) {
			d.Users[0].Questions = append([]question{{ID: "ada-qx", Question: "?"}}, ada.Questions...)
		}, "no answers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dataset{Users: []user{ada, ben}}
			tc.spoil(&c)
			err := c.validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("validate = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// floors are the figures each retriever reached, minus a point: a change
// that loses more fails CI. (Before issue 14's ranking, Search reached
// 0.280 / 0.613.) For Context, answer@all says whether the answer is in
// the block.
var floors = map[string]struct{ at1, at3, all float64 }{
	"search":  {0.453 - 0.01, 0.800 - 0.01, 0},
	"recall":  {0.440 - 0.01, 0.773 - 0.01, 0},
	"context": {0, 0, 0.987 - 0.01},
}

// TestRetrievers runs the harness with Search, Recall and Context and
// holds each to its floor.
func TestRetrievers(t *testing.T) {
	d, err := load(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	for name, floor := range floors {
		t.Run(name, func(t *testing.T) {
			rep, err := run(context.Background(), d, t.TempDir(), name, retrievers[name], nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Log("\n" + rep.String())
			n, sh := rep.overall()
			if n != stated.questions {
				t.Errorf("questions = %d, want %d", n, stated.questions)
			}
			if sh[0] < floor.at1 || sh[1] < floor.at3 || sh[3] < floor.all {
				t.Errorf("answer@1 = %.3f, answer@3 = %.3f, answer@all = %.3f; want at least %.3f, %.3f and %.3f",
					sh[0], sh[1], sh[3], floor.at1, floor.at3, floor.all)
			}
		})
	}
}

// TestForeignAnswer checks that the harness refuses a result that is
// another user's memory: the users are agents of one file.
func TestForeignAnswer(t *testing.T) {
	d, err := load(dataPath)
	if err != nil {
		t.Fatal(err)
	}
	foreign := d.Users[1].Facts[0].ID
	leak := func(context.Context, *engram.Memory, string) ([]hit, error) { return []hit{{ID: foreign}}, nil }
	_, err = run(context.Background(), d, t.TempDir(), "leak", leak, nil)
	if err == nil || !strings.Contains(err.Error(), foreign) {
		t.Fatalf("run = %v, want an error naming %s", err, foreign)
	}
}

func TestAnswerArithmetic(t *testing.T) {
	r := newReport("x")
	r.add(kindFact, []string{"a", "b"}, []string{"x", "y", "b", "a"}, kindEpisode) // answered at 3
	r.add(kindFact, []string{"a"}, []string{"a"}, kindFact)                        // answered at 1
	r.add(kindSnapshot, []string{"s"}, nil, "")                                    // nothing found
	n, all := r.overall()
	if n != 3 || all[0] != 1.0/3 || all[1] != 2.0/3 || all[2] != 2.0/3 {
		t.Errorf("overall = %d %v, want 3 [1/3 2/3 2/3]", n, all)
	}
	if f := r.share(kindFact); f[0] != 0.5 || f[1] != 1 {
		t.Errorf("fact shares = %v, want [0.5 1 1]", f)
	}
	if r.wrongTop[kindFact][kindEpisode] != 1 || r.wrongTop[kindSnapshot][""] != 1 {
		t.Errorf("first results when wrong = %v", r.wrongTop)
	}
	if s := r.String(); !strings.HasSuffix(s, "recall x questions=3 answer@1=0.333 answer@3=0.667 answer@10=0.667 answer@all=0.667") {
		t.Errorf("summary line of\n%s\nis not the expected one", s)
	}
}
