package engram_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/engram-go/engram"
	"github.com/engram-go/engram/internal/testutil"
)

// The scripted life: two years of what an agent learns about Maya Chen
// and its user, told as it would be told (moves, job changes, a marriage,
// likes that pile up, things that stop being true, corrections of dates
// learned months later, names shortened), then checked against a
// timeline written by hand.

// lifeStep is one thing the agent learns, on the clock's date on.
type lifeStep struct {
	on   time.Time
	fact engram.Fact
	want engram.FactAction
	// retract, when set, ends the current fact "subject|predicate|object"
	// at fact.ValidTo (the clock's now when zero) instead of asserting.
	retract string
	// alias, when set, makes alias[1] another name of alias[0].
	alias [2]string
}

func lifeFact(s, p, o string) engram.Fact { return engram.Fact{Subject: s, Predicate: p, Object: o} }

// from back-dates a fact: it started at t.
func from(f engram.Fact, t time.Time) engram.Fact { f.ValidFrom = t; return f }

var lifeScript = []lifeStep{
	{on: date(2024, 1, 5), fact: lifeFact("Maya Chen", "lives in", "Boston"), want: engram.FactInserted},
	{on: date(2024, 1, 5), fact: lifeFact("Maya Chen", "works at", "Initech"), want: engram.FactInserted},
	{on: date(2024, 1, 5), fact: lifeFact("Maya Chen", "timezone", "America/New_York"), want: engram.FactInserted},
	{on: date(2024, 1, 5), fact: lifeFact("Maya Chen", "job title", "Analyst"), want: engram.FactInserted},
	{on: date(2024, 1, 10), fact: lifeFact("Maya Chen", "likes", "jazz"), want: engram.FactInserted},
	{on: date(2024, 1, 10), fact: lifeFact("Maya Chen", "likes", "hiking"), want: engram.FactInserted},
	{on: date(2024, 1, 20), fact: lifeFact("User", "lives in", "Boston"), want: engram.FactInserted},
	{on: date(2024, 1, 20), fact: lifeFact("User", "knows", "Maya Chen"), want: engram.FactInserted},
	{on: date(2024, 1, 20), fact: lifeFact("User", "likes", "coffee"), want: engram.FactInserted},
	{on: date(2024, 1, 20), fact: lifeFact("User", "works at", "Initech"), want: engram.FactInserted},
	// Repeats, in other words, strengthen what the agent knows.
	{on: date(2024, 2, 1), fact: lifeFact("Maya Chen", "resides in", "Boston"), want: engram.FactMerged},
	{on: date(2024, 2, 15), fact: lifeFact("maya  chen", "likes", "Jazz"), want: engram.FactMerged},
	{on: date(2024, 3, 1), fact: lifeFact("Maya Chen", "is employed by", "Initech"), want: engram.FactMerged},
	{on: date(2024, 3, 10), fact: lifeFact("Maya Chen", "likes", "sushi"), want: engram.FactInserted},
	{on: date(2024, 3, 10), fact: lifeFact("User", "likes", "dark chocolate"), want: engram.FactInserted},
	// A new job and title.
	{on: date(2024, 4, 1), fact: lifeFact("Maya Chen", "works at", "Globex"), want: engram.FactSuperseded},
	{on: date(2024, 4, 1), fact: lifeFact("Maya Chen", "job title", "Engineer"), want: engram.FactSuperseded},
	{on: date(2024, 5, 10), fact: lifeFact("Maya Chen", "likes", "climbing"), want: engram.FactInserted},
	// A move, told on the day the agent hears of it.
	{on: date(2024, 6, 1), fact: lifeFact("Maya Chen", "moved to", "Denver"), want: engram.FactSuperseded},
	{on: date(2024, 6, 1), fact: lifeFact("Maya Chen", "time zone", "America/Denver"), want: engram.FactSuperseded},
	{on: date(2024, 6, 15), fact: lifeFact("User", "likes", "tea"), want: engram.FactInserted},
	{on: date(2024, 7, 1), fact: lifeFact("Maya Chen", "enjoys", "jazz"), want: engram.FactMerged},
	{on: date(2024, 7, 20), retract: "Maya Chen|likes|hiking"}, // a knee injury
	// The move was two weeks earlier than the agent first heard.
	{on: date(2024, 8, 1), fact: from(lifeFact("Maya Chen", "lives in", "Denver"), date(2024, 5, 15)), want: engram.FactSuperseded},
	{on: date(2024, 8, 1), fact: from(lifeFact("Maya Chen", "timezone", "America/Denver"), date(2024, 5, 15)), want: engram.FactSuperseded},
	// A wedding, heard of a week later.
	{on: date(2024, 9, 1), fact: from(lifeFact("Maya Chen", "is married to", "Sam Rivera"), date(2024, 8, 24)), want: engram.FactInserted},
	{on: date(2024, 9, 1), fact: lifeFact("Sam Rivera", "lives in", "Denver"), want: engram.FactInserted},
	{on: date(2024, 9, 1), fact: lifeFact("Sam Rivera", "works at", "Globex"), want: engram.FactInserted},
	{on: date(2024, 9, 10), alias: [2]string{"Sam Rivera", "Sam"}},
	{on: date(2024, 9, 10), fact: lifeFact("Maya Chen", "spouse", "Sam"), want: engram.FactMerged},
	{on: date(2024, 9, 10), fact: from(lifeFact("Sam", "is married to", "Maya Chen"), date(2024, 8, 24)), want: engram.FactInserted},
	{on: date(2024, 10, 1), fact: lifeFact("User", "likes", "coffee"), want: engram.FactMerged},
	{on: date(2024, 10, 5), fact: lifeFact("Maya Chen", "likes", "hiking"), want: engram.FactInserted}, // the knee healed
	{on: date(2024, 11, 1), fact: lifeFact("Maya Chen", "job title", "Senior Engineer"), want: engram.FactSuperseded},
	{on: date(2024, 11, 15), fact: lifeFact("User", "knows", "Sam"), want: engram.FactInserted},
	{on: date(2024, 12, 1), fact: lifeFact("User", "timezone", "America/New_York"), want: engram.FactInserted},
	{on: date(2025, 1, 15), fact: lifeFact("Maya Chen", "works for", "Umbrella Corp"), want: engram.FactSuperseded},
	// She had started at Umbrella a week before the agent heard, and
	// between Globex and Umbrella there was a month at Hooli, which the
	// agent learns last.
	{on: date(2025, 2, 1), fact: from(lifeFact("Maya Chen", "works at", "Umbrella Corp"), date(2025, 1, 6)), want: engram.FactSuperseded},
	{on: date(2025, 3, 1), fact: from(lifeFact("Maya Chen", "works at", "Hooli"), date(2024, 12, 1)), want: engram.FactSuperseded},
	// Before Boston she lived in Chicago: before anything the agent knew.
	{on: date(2025, 3, 15), fact: from(lifeFact("Maya Chen", "lives in", "Chicago"), date(2023, 6, 1)), want: engram.FactInserted},
	{on: date(2025, 3, 15), alias: [2]string{"Maya Chen", "Maya"}},
	{on: date(2025, 3, 15), fact: lifeFact("Maya", "likes", "sushi"), want: engram.FactMerged},
	{on: date(2025, 4, 1), fact: lifeFact("Maya", "moved to", "Seattle"), want: engram.FactSuperseded},
	{on: date(2025, 4, 1), fact: lifeFact("Maya", "timezone", "America/Los_Angeles"), want: engram.FactSuperseded},
	{on: date(2025, 4, 1), fact: lifeFact("Sam Rivera", "lives in", "Seattle"), want: engram.FactSuperseded},
	{on: date(2025, 4, 10), fact: lifeFact("Sam", "works at", "Microsoft"), want: engram.FactSuperseded},
	{on: date(2025, 5, 1), fact: lifeFact("User", "lives in", "Portland"), want: engram.FactSuperseded},
	{on: date(2025, 5, 1), fact: lifeFact("User", "tz", "America/Los_Angeles"), want: engram.FactSuperseded},
	// The user gave up coffee on May 20 and says so on June 1.
	{on: date(2025, 6, 1), retract: "User|likes|coffee", fact: engram.Fact{ValidTo: date(2025, 5, 20)}},
	{on: date(2025, 6, 10), fact: lifeFact("User", "likes", "green tea"), want: engram.FactInserted},
	{on: date(2025, 7, 1), fact: lifeFact("Maya", "likes", "climbing"), want: engram.FactMerged},
	{on: date(2025, 7, 1), fact: lifeFact("Maya", "likes", "kayaking"), want: engram.FactInserted},
	{on: date(2025, 7, 1), fact: lifeFact("Maya", "likes", "sushi"), want: engram.FactMerged},
	// A summer in Vancouver, told afterwards: Seattle is home again after.
	{on: date(2025, 8, 1), fact: engram.Fact{Subject: "Maya", Predicate: "lives in", Object: "Vancouver",
		ValidFrom: date(2025, 6, 1), ValidTo: date(2025, 7, 15)}, want: engram.FactSuperseded},
	// The user had been at Initech since New Year, not since January 20.
	{on: date(2025, 8, 15), fact: from(lifeFact("User", "works at", "Initech"), date(2024, 1, 1)), want: engram.FactMerged},
	{on: date(2025, 9, 1), fact: lifeFact("User", "works at", "Stark Industries"), want: engram.FactSuperseded},
	{on: date(2025, 9, 15), fact: lifeFact("Maya Chen", "job title", "Staff Engineer"), want: engram.FactSuperseded},
	{on: date(2025, 10, 1), retract: "Maya|likes|climbing"},
	// She has liked jazz since well before the agent met her.
	{on: date(2025, 10, 15), fact: from(lifeFact("Maya Chen", "likes", "jazz"), date(2023, 1, 1)), want: engram.FactMerged},
	{on: date(2025, 11, 1), fact: lifeFact("User", "knows", "Maya"), want: engram.FactMerged},
	{on: date(2025, 11, 1), fact: lifeFact("User", "likes", "board games"), want: engram.FactInserted},
	{on: date(2025, 11, 20), fact: lifeFact("Maya", "is married to", "Sam Rivera"), want: engram.FactMerged},
	{on: date(2025, 12, 1), fact: lifeFact("Maya", "likes", "coffee"), want: engram.FactInserted},
	{on: date(2025, 12, 15), fact: lifeFact("Sam Rivera", "likes", "jazz"), want: engram.FactInserted},
	{on: date(2025, 12, 20), fact: lifeFact("User", "timezone", "America/Los_Angeles"), want: engram.FactMerged},
}

// lifeRow is what was true on a date, by slot, as written by hand from
// the story above (not from what engram answers): each field is the
// slot's objects, sorted and joined by ", ", "" for none.
type lifeRow struct {
	at                                      time.Time
	lives, works, tz, title, spouse, likes  string // Maya's
	userLives, userWorks, userTZ, userLikes string
}

var lifeTimeline = []lifeRow{
	{at: date(2023, 3, 1), likes: "jazz"},
	{at: date(2023, 9, 1), lives: "Chicago", likes: "jazz"},
	{at: date(2024, 1, 6), lives: "Boston", works: "Initech", tz: "America/New_York", title: "Analyst", likes: "jazz",
		userWorks: "Initech"},
	{at: date(2024, 1, 25), lives: "Boston", works: "Initech", tz: "America/New_York", title: "Analyst", likes: "hiking, jazz",
		userLives: "Boston", userWorks: "Initech", userLikes: "coffee"},
	{at: date(2024, 3, 15), lives: "Boston", works: "Initech", tz: "America/New_York", title: "Analyst", likes: "hiking, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userLikes: "coffee, dark chocolate"},
	{at: date(2024, 4, 15), lives: "Boston", works: "Globex", tz: "America/New_York", title: "Engineer", likes: "hiking, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userLikes: "coffee, dark chocolate"},
	{at: date(2024, 5, 20), lives: "Denver", works: "Globex", tz: "America/Denver", title: "Engineer", likes: "climbing, hiking, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userLikes: "coffee, dark chocolate"},
	{at: date(2024, 6, 20), lives: "Denver", works: "Globex", tz: "America/Denver", title: "Engineer", likes: "climbing, hiking, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userLikes: "coffee, dark chocolate, tea"},
	{at: date(2024, 8, 1), lives: "Denver", works: "Globex", tz: "America/Denver", title: "Engineer", likes: "climbing, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userLikes: "coffee, dark chocolate, tea"},
	{at: date(2024, 8, 30), lives: "Denver", works: "Globex", tz: "America/Denver", title: "Engineer", spouse: "Sam Rivera", likes: "climbing, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userLikes: "coffee, dark chocolate, tea"},
	{at: date(2024, 10, 10), lives: "Denver", works: "Globex", tz: "America/Denver", title: "Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userLikes: "coffee, dark chocolate, tea"},
	{at: date(2024, 11, 10), lives: "Denver", works: "Globex", tz: "America/Denver", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userLikes: "coffee, dark chocolate, tea"},
	{at: date(2024, 12, 15), lives: "Denver", works: "Hooli", tz: "America/Denver", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userTZ: "America/New_York", userLikes: "coffee, dark chocolate, tea"},
	{at: date(2025, 1, 10), lives: "Denver", works: "Umbrella Corp", tz: "America/Denver", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userTZ: "America/New_York", userLikes: "coffee, dark chocolate, tea"},
	{at: date(2025, 4, 5), lives: "Seattle", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, sushi",
		userLives: "Boston", userWorks: "Initech", userTZ: "America/New_York", userLikes: "coffee, dark chocolate, tea"},
	{at: date(2025, 5, 10), lives: "Seattle", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, sushi",
		userLives: "Portland", userWorks: "Initech", userTZ: "America/Los_Angeles", userLikes: "coffee, dark chocolate, tea"},
	{at: date(2025, 5, 25), lives: "Seattle", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, sushi",
		userLives: "Portland", userWorks: "Initech", userTZ: "America/Los_Angeles", userLikes: "dark chocolate, tea"},
	{at: date(2025, 6, 15), lives: "Vancouver", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, sushi",
		userLives: "Portland", userWorks: "Initech", userTZ: "America/Los_Angeles", userLikes: "dark chocolate, green tea, tea"},
	{at: date(2025, 7, 10), lives: "Vancouver", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, kayaking, sushi",
		userLives: "Portland", userWorks: "Initech", userTZ: "America/Los_Angeles", userLikes: "dark chocolate, green tea, tea"},
	{at: date(2025, 7, 20), lives: "Seattle", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, kayaking, sushi",
		userLives: "Portland", userWorks: "Initech", userTZ: "America/Los_Angeles", userLikes: "dark chocolate, green tea, tea"},
	{at: date(2025, 9, 10), lives: "Seattle", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Senior Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, kayaking, sushi",
		userLives: "Portland", userWorks: "Stark Industries", userTZ: "America/Los_Angeles", userLikes: "dark chocolate, green tea, tea"},
	{at: date(2025, 9, 20), lives: "Seattle", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Staff Engineer", spouse: "Sam Rivera", likes: "climbing, hiking, jazz, kayaking, sushi",
		userLives: "Portland", userWorks: "Stark Industries", userTZ: "America/Los_Angeles", userLikes: "dark chocolate, green tea, tea"},
	{at: date(2025, 10, 5), lives: "Seattle", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Staff Engineer", spouse: "Sam Rivera", likes: "hiking, jazz, kayaking, sushi",
		userLives: "Portland", userWorks: "Stark Industries", userTZ: "America/Los_Angeles", userLikes: "dark chocolate, green tea, tea"},
	{at: date(2025, 12, 10), lives: "Seattle", works: "Umbrella Corp", tz: "America/Los_Angeles", title: "Staff Engineer", spouse: "Sam Rivera", likes: "coffee, hiking, jazz, kayaking, sushi",
		userLives: "Portland", userWorks: "Stark Industries", userTZ: "America/Los_Angeles", userLikes: "board games, dark chocolate, green tea, tea"},
}

// objects returns the facts' objects, sorted and joined by ", ".
func objects(list []engram.Fact) string {
	out := make([]string, len(list))
	for i, f := range list {
		out[i] = f.Object
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// runLife plays the script on m, moving clock, and checks what each
// assertion did.
func runLife(t *testing.T, ctx context.Context, m *engram.Memory, clock *testutil.Clock) {
	t.Helper()
	facts := m.Facts()
	asserted := 0
	for i, st := range lifeScript {
		require.False(t, st.on.Before(clock.Now()), "step %d goes back in time", i)
		clock.Set(st.on)
		switch {
		case st.alias[0] != "":
			require.NoError(t, facts.Alias(ctx, st.alias[0], st.alias[1]), "step %d", i)
		case st.retract != "":
			spo := strings.Split(st.retract, "|")
			cur, err := facts.Current(ctx, engram.FactQuery{Entity: spo[0], Direction: engram.DirectionOut, Predicate: spo[1]})
			require.NoError(t, err)
			id := ""
			for _, f := range cur {
				if strings.EqualFold(f.Object, spo[2]) {
					id = f.ID
				}
			}
			require.NotEmpty(t, id, "step %d: no current fact %s", i, st.retract)
			ended, err := facts.Retract(ctx, id, st.fact.ValidTo)
			require.NoError(t, err, "step %d", i)
			want := st.fact.ValidTo
			if want.IsZero() {
				want = st.on
			}
			assert.Equal(t, want, ended.ValidTo, "step %d: %s", i, st.retract)
			assert.Equal(t, st.on, ended.ExpiredAt, "step %d: %s is retired when retracted", i, st.retract)
		default:
			a, err := facts.Assert(ctx, st.fact)
			require.NoError(t, err, "step %d: %v", i, st.fact)
			assert.Equal(t, st.want, a.Action, "step %d: %v", i, st.fact)
			asserted++
		}
	}
	require.GreaterOrEqual(t, asserted, 60)
}

func TestFactsLife(t *testing.T) {
	clock := testutil.NewClock(date(2024, 1, 1))
	m := newMemory(t, engram.Tier1, engram.WithClock(clock.Now))
	ctx := context.Background()
	facts := m.Facts()
	runLife(t, ctx, m, clock)
	clock.Set(date(2025, 12, 31))

	asOf := func(at time.Time, entity, pred string) string {
		t.Helper()
		got, err := facts.AsOf(ctx, at, engram.FactQuery{Entity: entity, Direction: engram.DirectionOut, Predicate: pred})
		require.NoError(t, err)
		return objects(got)
	}
	require.GreaterOrEqual(t, len(lifeTimeline), 20)
	for _, row := range lifeTimeline {
		day := row.at.Format(time.DateOnly)
		for _, c := range []struct{ entity, pred, want string }{
			{"Maya Chen", "lives in", row.lives}, {"Maya", "works at", row.works}, {"maya chen", "timezone", row.tz},
			{"Maya Chen", "job title", row.title}, {"Maya Chen", "is married to", row.spouse}, {"Maya", "likes", row.likes},
			{"User", "lives in", row.userLives}, {"User", "works at", row.userWorks}, {"User", "timezone", row.userTZ},
			{"User", "likes", row.userLikes},
		} {
			assert.Equal(t, c.want, asOf(row.at, c.entity, c.pred), "%s: %s %s", day, c.entity, c.pred)
		}
	}

	t.Run("Current", func(t *testing.T) {
		cur, err := facts.Current(ctx, engram.FactQuery{})
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{
			"Maya moved to Seattle", // the stretch after Vancouver keeps the words of the move
			"Maya Chen works for Umbrella Corp",
			"Maya timezone America/Los_Angeles",
			"Maya Chen job title Staff Engineer",
			"Maya Chen is married to Sam Rivera",
			"Maya Chen likes jazz", "Maya Chen likes sushi", "Maya Chen likes hiking", "Maya likes kayaking", "Maya likes coffee",
			"Sam Rivera lives in Seattle", "Sam works at Microsoft", "Sam is married to Maya Chen", "Sam Rivera likes jazz",
			"User lives in Portland", "User works at Stark Industries", "User tz America/Los_Angeles",
			"User knows Maya Chen", "User knows Sam",
			"User likes dark chocolate", "User likes tea", "User likes green tea", "User likes board games",
		}, triples(cur))

		in, err := facts.Current(ctx, engram.FactQuery{Entity: "maya", Direction: engram.DirectionIn})
		require.NoError(t, err)
		assert.Equal(t, []string{"Sam is married to Maya Chen", "User knows Maya Chen"}, triples(in), "facts into Maya, under either name")
		strength := map[string]float64{}
		for _, f := range cur {
			strength[f.String()] = f.Strength
		}
		assert.Equal(t, 4.0, strength["Maya Chen likes jazz"], "asserted four times, in three wordings")
		assert.Equal(t, 3.0, strength["Maya Chen likes sushi"])
		assert.Equal(t, 3.0, strength["Maya Chen is married to Sam Rivera"], "spouse Sam, then is married to under her short name")
		assert.Equal(t, 2.0, strength["User knows Maya Chen"])
		assert.Equal(t, 2.0, strength["User tz America/Los_Angeles"])
		assert.Equal(t, 2.0, strength["Maya Chen works for Umbrella Corp"])
	})

	// span is a fact of a history as "object [from, to) expired".
	span := func(f engram.Fact) string {
		d := func(t time.Time) string {
			if t.IsZero() {
				return "-"
			}
			return t.Format(time.DateOnly)
		}
		return f.Object + " [" + d(f.ValidFrom) + ", " + d(f.ValidTo) + ") " + d(f.ExpiredAt)
	}
	history := func(subject, pred string) []string {
		t.Helper()
		h, err := facts.History(ctx, subject, pred)
		require.NoError(t, err)
		out := make([]string, len(h))
		for i, f := range h {
			out[i] = span(f)
		}
		return out
	}
	t.Run("History", func(t *testing.T) {
		assert.Equal(t, []string{
			"Chicago [2023-06-01, 2024-01-05) 2025-03-15", // learned already over
			"Boston [2024-01-05, 2024-05-15) 2024-06-01",  // retired by the move, cut short by its correction
			"Denver [2024-05-15, 2025-04-01) 2025-04-01",
			"Seattle [2025-04-01, 2025-06-01) 2025-08-01",
			"Vancouver [2025-06-01, 2025-07-15) 2025-08-01",
			"Seattle [2025-07-15, -) -",
		}, history("Maya", "lives in"))
		assert.Equal(t, []string{
			"Initech [2024-01-05, 2024-04-01) 2024-04-01",
			"Globex [2024-04-01, 2024-12-01) 2025-01-15",
			"Hooli [2024-12-01, 2025-01-06) 2025-03-01",
			"Umbrella Corp [2025-01-06, -) -",
		}, history("Maya Chen", "is employed by"))
		assert.Equal(t, []string{
			"Analyst [2024-01-05, 2024-04-01) 2024-04-01",
			"Engineer [2024-04-01, 2024-11-01) 2024-11-01",
			"Senior Engineer [2024-11-01, 2025-09-15) 2025-09-15",
			"Staff Engineer [2025-09-15, -) -",
		}, history("Maya Chen", "title"))
		assert.Equal(t, []string{
			"jazz [2023-01-01, -) -",
			"hiking [2024-01-10, 2024-07-20) 2024-07-20",
			"sushi [2024-03-10, -) -",
			"climbing [2024-05-10, 2025-10-01) 2025-10-01",
			"hiking [2024-10-05, -) -",
			"kayaking [2025-07-01, -) -",
			"coffee [2025-12-01, -) -",
		}, history("Maya", "likes"))
		assert.Equal(t, []string{
			"coffee [2024-01-20, 2025-05-20) 2025-06-01",
			"dark chocolate [2024-03-10, -) -",
			"tea [2024-06-15, -) -",
			"green tea [2025-06-10, -) -",
			"board games [2025-11-01, -) -",
		}, history("User", "likes"))
		assert.Equal(t, []string{
			"Initech [2024-01-01, 2025-09-01) 2025-09-01",
			"Stark Industries [2025-09-01, -) -",
		}, history("User", "works at"))
		assert.Equal(t, []string{
			"Globex [2024-09-01, 2025-04-10) 2025-04-10",
			"Microsoft [2025-04-10, -) -",
		}, history("Sam", "works at"))
	})

	// KnownAt answers what the agent believed on a date; AsOf what it
	// knows now was true then.
	t.Run("KnownAt", func(t *testing.T) {
		knownAt := func(at time.Time, entity, pred string) string {
			t.Helper()
			got, err := facts.KnownAt(ctx, at, engram.FactQuery{Entity: entity, Direction: engram.DirectionOut, Predicate: pred})
			require.NoError(t, err)
			return objects(got)
		}
		for _, c := range []struct {
			at                  time.Time
			entity, pred        string
			believed, truthKnow string
		}{
			{date(2023, 9, 1), "Maya", "lives in", "", "Chicago"},
			{date(2024, 5, 20), "Maya", "lives in", "Boston", "Denver"},
			{date(2024, 12, 15), "Maya", "works at", "Globex", "Hooli"},
			{date(2025, 1, 10), "Maya", "works at", "Globex", "Umbrella Corp"},
			{date(2025, 2, 15), "Maya", "works at", "Umbrella Corp", "Umbrella Corp"},
			{date(2025, 6, 15), "Maya", "lives in", "Seattle", "Vancouver"},
			{date(2025, 7, 20), "Maya", "lives in", "Seattle", "Seattle"},
			{date(2025, 5, 25), "User", "likes", "coffee, dark chocolate, tea", "dark chocolate, tea"},
			{date(2024, 1, 10), "User", "works at", "", "Initech"},
			{date(2023, 3, 1), "Maya", "likes", "", "jazz"},
		} {
			day := c.at.Format(time.DateOnly)
			assert.Equal(t, c.believed, knownAt(c.at, c.entity, c.pred), "KnownAt %s: %s %s", day, c.entity, c.pred)
			assert.Equal(t, c.truthKnow, asOf(c.at, c.entity, c.pred), "AsOf %s: %s %s", day, c.entity, c.pred)
		}
	})

	// walk writes a path as its entities and predicates, each entity as
	// the fact names it.
	walk := func(p engram.Path) string {
		var b strings.Builder
		for i, h := range p {
			if i == 0 {
				b.WriteString(h.From())
			}
			arrow := " -" + h.Fact.Predicate + "-> "
			if h.Direction == engram.DirectionIn {
				arrow = " <-" + h.Fact.Predicate + "- "
			}
			b.WriteString(arrow + h.To())
		}
		return b.String()
	}
	t.Run("Paths", func(t *testing.T) {
		paths, err := facts.Paths(ctx, "User", "Seattle", 0)
		require.NoError(t, err)
		var got []string
		for _, p := range paths {
			got = append(got, walk(p))
		}
		// By hand: the user knows Maya and Sam, who both live in Seattle
		// (Maya since the stretch after Vancouver), and are married to
		// each other by two facts, one each way, from the same day; the
		// user shares Maya's timezone, a value both facts name. Denver,
		// Boston and the rest of Maya's past homes lead nowhere: those
		// facts ended. Paths of one length come by the entities they
		// pass, then by their facts' predicates, starts and directions
		// (a hop against its fact first).
		assert.Equal(t, []string{
			"User -knows-> Maya Chen -moved to-> Seattle",
			"User -knows-> Sam -lives in-> Seattle",
			"User -tz-> America/Los_Angeles <-timezone- Maya -moved to-> Seattle",
			"User -knows-> Maya Chen <-is married to- Sam -lives in-> Seattle",
			"User -knows-> Maya Chen -is married to-> Sam Rivera -lives in-> Seattle",
			"User -knows-> Sam <-is married to- Maya Chen -moved to-> Seattle",
			"User -knows-> Sam -is married to-> Maya Chen -moved to-> Seattle",
		}, got)

		paths, err = facts.Paths(ctx, "User", "Boston", 3)
		require.NoError(t, err)
		assert.Empty(t, paths, "no fact that holds reaches a past home")
		_, err = facts.Paths(ctx, "User", "Atlantis", 3)
		assert.ErrorIs(t, err, engram.ErrNotFound)

		nbs, err := facts.Neighbours(ctx, engram.FactQuery{Entity: "Sam Rivera"})
		require.NoError(t, err)
		var names []string
		for _, n := range nbs {
			names = append(names, n.Entity)
		}
		assert.Equal(t, []string{"jazz", "Maya Chen", "Microsoft", "Seattle", "User"}, names)
	})

	testutil.CheckAndClose(t, m)
}
