package wpdb_test

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/wploadmore/wploadmore/blog"
	"github.com/wploadmore/wploadmore/wpdb/wpdbtest"
)

// parseSearchPHP asks WP_Query how it reads each s of INPUT (a JSON list,
// base64), handed over as the front end hands it (with magic quotes):
// parse_query's bound, parse_search's s and terms, each with the pattern
// and exclusion parse_search's loop gives it, and, where get_posts orders
// by relevance, which ranks parse_search_order's CASE holds (THEN 1 to 5)
// or whether it is a single term's DESC.
const parseSearchPHP = `
class ParsedSearch extends WP_Query {
	function parsed($s) {
		global $wpdb;
		$this->parse_query(array('s' => wp_slash($s)));
		$q = $this->query_vars;
		$out = array('s' => '', 'terms' => array(), 'titles' => 0, 'order' => '');
		if (!strlen($q['s'])) {
			return $out;
		}
		$this->parse_search($q);
		$out['s'] = $q['s'];
		foreach ($q['search_terms'] as $term) {
			$exclude = substr($term, 0, 1) === '-';
			$out['terms'][] = array('like' => '%' . $wpdb->esc_like($exclude ? substr($term, 1) : $term) . '%', 'exclude' => $exclude);
		}
		$out['titles'] = count($q['search_orderby_title']);
		if (!empty($q['s']) && !empty($q['search_orderby_title'])) {
			$out['order'] = $wpdb->remove_placeholder_escape($this->parse_search_order($q));
		}
		return $out;
	}
}
$out = array();
foreach (json_decode(base64_decode('INPUT'), true) as $s) {
	$out[] = (new ParsedSearch())->parsed($s);
}
echo json_encode($out, JSON_THROW_ON_ERROR);
`

// parsedSearch is how a search reads s: what it searches for, its terms,
// and its relevance order's ranks (1 the phrase in the title, 2 all
// terms in it, 3 any, 4 the phrase in the excerpt, 5 in the content), or
// Desc for a single term's, with the phrase's and the titles' patterns.
type parsedSearch struct {
	S          string
	Terms      []blog.SearchTerm
	Ranks      []int
	Desc       bool
	Sentence   string
	TitleLikes []string
}

// parsedByGo is how blog.ParseSearch reads s.
func parsedByGo(s string) parsedSearch {
	q := blog.ParseSearch(s, nil)
	p := parsedSearch{S: q.Text(), Terms: q.Terms()}
	o := q.Order()
	if o == nil {
		return p
	}
	p.TitleLikes = o.TitleLikes
	if !o.Several {
		p.Desc = true
		return p
	}
	p.Sentence = o.Sentence
	for rank, in := range map[int]bool{1: o.Sentence != "", 2: o.All, 3: o.Any, 4: o.Sentence != "", 5: o.Sentence != ""} {
		if in {
			p.Ranks = append(p.Ranks, rank)
		}
	}
	slices.Sort(p.Ranks)
	return p
}

// parsedByWordPress is how WP_Query reads each of searches.
func parsedByWordPress(t *testing.T, wp *wpdbtest.WordPress, searches []string) []parsedSearch {
	t.Helper()
	in, err := json.Marshal(searches)
	if err != nil {
		t.Fatal(err)
	}
	var answers []struct {
		S     string `json:"s"`
		Terms []struct {
			Like    string `json:"like"`
			Exclude bool   `json:"exclude"`
		} `json:"terms"`
		Titles int    `json:"titles"`
		Order  string `json:"order"`
	}
	out := wp.PHP(t, strings.Replace(parseSearchPHP, "INPUT", base64.StdEncoding.EncodeToString(in), 1))
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatalf("WP_Query answered %.200q: %v", out, err)
	}
	if len(answers) != len(searches) {
		t.Fatalf("WP_Query answered %d searches, want %d", len(answers), len(searches))
	}
	parsed := make([]parsedSearch, len(answers))
	for i, a := range answers {
		p := parsedSearch{S: a.S}
		var titleLikes []string
		for _, term := range a.Terms {
			p.Terms = append(p.Terms, blog.SearchTerm{Like: term.Like, Exclude: term.Exclude})
			if !term.Exclude {
				titleLikes = append(titleLikes, term.Like)
			}
		}
		if len(titleLikes) != a.Titles {
			t.Fatalf("%q: %d terms not excluded, and %d post_title LIKEs", searches[i], len(titleLikes), a.Titles)
		}
		if a.Order != "" {
			p.TitleLikes = titleLikes
			p.Desc = strings.HasSuffix(a.Order, " DESC") && !strings.HasPrefix(a.Order, "(CASE ")
			for rank := 1; rank <= 5; rank++ {
				if strings.Contains(a.Order, " THEN "+string(rune('0'+rank))+" ") {
					p.Ranks = append(p.Ranks, rank)
				}
			}
			if slices.Contains(p.Ranks, 1) {
				p.Sentence = likeOf(a.S)
			}
		}
		parsed[i] = p
	}
	return parsed
}

// likeOf is '%' . $wpdb->esc_like($s) . '%', which parse_search_order
// matches the whole phrase with.
func likeOf(s string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s) + "%"
}

// TestParseSearchWordPress compares how blog.ParseSearch reads each
// search with how WP_Query does, term by term and rank by rank: where
// the 1 600-byte bound falls when s holds NULs, which magic quotes count
// twice as they count quotes and backslashes; how many terms stay terms
// (9, counted once stopwords and one-letter words are dropped) before s
// becomes one phrase; and which - turns the phrase ranks off (one first,
// or after white space as PCRE's \s spells it), besides every search the
// other oracle tests run.
func TestParseSearchWordPress(t *testing.T) {
	t.Parallel()
	wp := wpdbtest.NewWordPress(t)
	a := strings.Repeat
	nine := "one two three four five six seven eight nine"
	searches := append(searchStrings(),
		// The bound, with NULs, quotes and backslashes.
		a("a", 1598)+"\x00", a("a", 1599)+"\x00", "\x00"+a("a", 1599), a("a", 1598)+"\x00b",
		a("\x00", 800), a("\x00", 801), a("ab ", 532)+"\x00\x00", a("ab ", 532)+"\x00\x00\x00",
		a("a", 1598)+`\`, a("a", 1599)+`\`, a("a", 1598)+"'", a("a", 1599)+"'", a("pie ", 399)+"\x00\x00", a("pie ", 399)+"\x00-\x00",
		// 9 terms, 10, and 10 words of which some are no terms.
		nine, nine+" ten", nine+" ten eleven", nine+" the", nine+" x", nine+" the x", nine+" 0", nine+" -",
		"the "+nine, nine+" ten the", nine+" -ten", "-"+nine+" ten", "-"+nine, `"one two" three four five six seven eight nine ten`,
		nine+` "ten eleven"`, "one,two,three,four,five,six,seven,eight,nine,ten", "one+two+three+four+five+six+seven+eight+nine",
		// A - first, after white space, or within a word.
		"-x y", "-x apple", "-x apple pie", "-lunch apple pie", "- apple pie", "-- apple pie", "apple -pie", "apple pie -x",
		"apple\t-pie", "apple\v-pie", "apple\f-pie", "apple\u00a0-pie", "apple,-pie", "apple+-pie", `apple"-pie"`,
		"pie apple\v-pie", "pie apple\f-pie", "pie apple\u00a0-pie", "pie apple\u0085-pie", "pie apple\r\n-pie",
		"e-mail pie", "pie e-mail", "apple pie-", "apple - pie", "-apple -pie", `"-apple pie"`, `-"apple pie"`,
	)
	want := parsedByWordPress(t, wp, searches)
	// Each kind of reading is among WordPress's answers, or the searches
	// are wrong: the empty s past the bound, a phrase, 9 terms, a single
	// term's order, the phrase ranks and their absence.
	kinds := map[string]int{}
	for _, p := range want {
		kinds["empty"] += boolInt(p.S == "")
		kinds["one phrase of several words"] += boolInt(len(p.Terms) == 1 && strings.Contains(p.S, " "))
		kinds["9 terms"] += boolInt(len(p.Terms) == 9)
		kinds["a single term's DESC"] += boolInt(p.Desc)
		kinds["the phrase ranks"] += boolInt(p.Sentence != "")
		kinds["several terms, no phrase ranks"] += boolInt(len(p.Ranks) > 0 && p.Sentence == "")
	}
	for kind, n := range kinds {
		if n == 0 {
			t.Errorf("no search reads as %s", kind)
		}
	}
	t.Logf("%d searches compared: %v", len(searches), kinds)
	for i, s := range searches {
		name := s
		if len(name) > 60 {
			name = name[:60] + "…"
		}
		if diff := cmp.Diff(want[i], parsedByGo(s), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%d bytes, %q (-WP_Query +ParseSearch):\n%s", len(s), name, diff)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
