package query

import (
	"database/sql"
	"strings"
	"testing"
)

// Classic Porter examples.
func TestStemExamples(t *testing.T) {
	for in, want := range map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor",
		"sing": "sing", "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"tanned": "tan", "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail",
		"filing": "file", "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit",
		"rational": "ration", "valenci": "valenc", "digitizer": "digit", "conformabli": "conform",
		"radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
		"vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
		"decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
		"sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
		"formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
		"goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
		"airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
		"irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
		"adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
		"angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
		"probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
		"deploy": "deploi", "deploys": "deploi", "deployed": "deploi", "deploying": "deploi",
		"go": "go", "2026": "2026", "café": "café",
	} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStemAgreesWithSQLite compares Stem with the porter tokenizer of the
// SQLite engram runs on, through an fts5vocab table.
func TestStemAgreesWithSQLite(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	words := strings.Fields(stemCorpus)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE f USING fts5(body, tokenize='porter unicode61')`,
		`CREATE VIRTUAL TABLE v USING fts5vocab(f, 'instance')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO f(body) VALUES (?)`, strings.Join(words, " ")); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT term, offset FROM v ORDER BY offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var term string
		var off int
		if err := rows.Scan(&term, &off); err != nil {
			t.Fatal(err)
		}
		if got := Stem(words[off]); got != term {
			t.Errorf("Stem(%q) = %q, SQLite says %q", words[off], got, term)
		}
		n++
	}
	if n != len(words) {
		t.Fatalf("compared %d of %d words", n, len(words))
	}
}

// TestStemKeepsFirstByte checks what snippets rely on: stemming rewrites
// suffixes only, so a stem starts with the same byte as its word.
func TestStemKeepsFirstByte(t *testing.T) {
	words := append(strings.Fields(stemCorpus), "ies", "ays", "yes", "eyes", "ied", "ing", "ed", "s", "é")
	for _, w := range words {
		if st := Stem(w); st == "" || st[0] != w[0] {
			t.Errorf("Stem(%q) = %q", w, st)
		}
	}
}

const stemCorpus = `the quick brown foxes jumped over lazy dogs while running swiftly through
fields deployments deployed deploying deploys database databases indexing indexed indexes
relational conditional rational happiness happily happier happiest generalization generalizations
organization organizations organizing organized organizer communication communications communicate
communicating communicated university universities universal universally probably probable
probability electricity electrical electric electrician sensitivity sensitive sensibility
agreement agreed agreeing agree feed feeding fed hopping hoped hoping hopeful hopefully
hopefulness caresses ponies ties cats sky skies flying flies flied dying dyeing lying tying
conflated troubled sized tanned falling hissing fizzed failing filing motoring singing sing
went gone going goes go painting painted paints painter sunrise sunrises photography photographs
photographed adoption adopted adopting adopt counseling counselor counselors psychology
psychological transgender supportive supporting support supported camping camped campers
pottery potteries marathon running runner runners ran playing played player players violin
guitar concerts concert festival festivals volunteering volunteered volunteer mentorship
mentoring mentored mentor friendships friendship friends friendly unfriendly kindness kindly
owned owning owner ownership business businesses traveling travelled traveller travels
decisiveness triplicate formative formalize electriciti goodness revival allowance inference
airliner gyroscopic adjustable defensible irritant replacement adjustment dependent homologous
communism activate angularity effective bowdlerize probate rate cease controlling rolling roll
abilities ability able unable enable enabled enabling enables responsibility responsible
responsibly creation creative creativity created creating create creates recreation recreational
national nationality nationalities nationalize nationalization international internationally
yesterday tomorrow today weekend weekends morning mornings evening evenings summer winter
beautiful beautifully beauty beauties wonderful wonderfully amazing amazingly excited exciting
excitement excites anniversary anniversaries birthday birthdays graduation graduated graduate
meditation meditate meditating mindfulness mindful yoga hiking hiked hikes hiker swimming swam`
