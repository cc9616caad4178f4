package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// pushKindFigures are the push row's figures for one kind of change on a
// number of instances: from WordPress's function's return to each surface
// showing the change (on the later of the instances).
type pushKindFigures struct {
	Kind      string `json:"kind"`
	Instances int    `json:"instances"`
	Changes   int    `json:"changes"`
	JSON      spread `json:"json"`
	Page      spread `json:"page"`
	// Search is a kept search's, for the kinds a search shows: none for
	// a move between categories or a featured image.
	Search *spread `json:"search,omitempty"`
}

// spread is the nearest-rank p50 and p99, and the slowest, of a series.
type spread struct {
	P50 ms `json:"p50_ms"`
	P99 ms `json:"p99_ms"`
	Max ms `json:"max_ms"`
}

// newSpread returns the spread of ds, which it sorts.
func newSpread(ds []time.Duration) spread {
	slices.Sort(ds)
	s := spread{P50: percentile(ds, 50), P99: percentile(ds, 99)}
	if len(ds) > 0 {
		s.Max = ms(ds[len(ds)-1])
	}
	return s
}

// surfaces are k's spreads by surface, the search's only where it has one.
func (k pushKindFigures) surfaces() map[string]spread {
	out := map[string]spread{surfaceJSON: k.JSON, surfacePage: k.Page}
	if k.Search != nil {
		out[surfaceSearch] = *k.Search
	}
	return out
}

// pushChangesPHP makes the changes the push row asks for on its standard
// input, one JSON object a line, each by WordPress's own function followed
// by the plugin's send, as at a request's shutdown, and answers each with
// the post and microtime(true) at the function's return. It first makes
// two categories and two images, and prints the categories.
const pushChangesPHP = `require $argv[1];
add_filter('wp_untrash_post_status', 'wp_untrash_post_set_previous_status', 10, 3);
$cats = array();
$images = array();
foreach (array('a', 'b') as $k) {
	$cats[$k] = wp_insert_term("Bench $k", 'category', array('slug' => "bench-$k"))['term_id'];
	$images[$k] = wp_insert_attachment(array('post_mime_type' => 'image/jpeg', 'post_title' => "bench-img-$k", 'post_status' => 'inherit'), "2026/11/bench-img-$k.jpg");
	wp_update_attachment_metadata($images[$k], array('width' => 800, 'height' => 600, 'file' => "2026/11/bench-img-$k.jpg", 'sizes' => array()));
}
WPLoadMore_Events::send();
echo json_encode($cats), "\n";
while (false !== ($line = fgets(STDIN))) {
	$c = json_decode($line, true);
	$id = (int) $c['id'];
	switch ($c['op']) {
	case 'publish': $id = wp_insert_post(array('post_title' => $c['title'], 'post_content' => 'x', 'post_status' => 'publish')); break;
	case 'update': wp_update_post(array('ID' => $id, 'post_title' => $c['title'])); break;
	case 'trash': wp_trash_post($id); break;
	case 'untrash': wp_untrash_post($id); break;
	case 'terms': wp_set_post_terms($id, array($cats[$c['to']]), 'category'); break;
	case 'image': set_post_thumbnail($id, $images[$c['to']]); break;
	}
	$returned = microtime(true);
	WPLoadMore_Events::send();
	echo json_encode(array('id' => $id, 'returned' => $returned, 'status' => get_post_status($id))), "\n";
}`

// pushChanger is the php-cli process running pushChangesPHP.
type pushChanger struct {
	in   io.WriteCloser
	out  *bufio.Reader
	cmd  *exec.Cmd
	errs *strings.Builder
	cats map[string]uint64 // the categories "a" and "b"
}

func (s *pushSite) startChanger(ctx context.Context) (*pushChanger, error) {
	c := &pushChanger{cmd: exec.CommandContext(ctx, "php", "-d", "display_errors=stderr", "-r", pushChangesPHP, "--", s.bootstrap),
		errs: &strings.Builder{}}
	c.cmd.Stderr = c.errs
	in, err1 := c.cmd.StdinPipe()
	stdout, err2 := c.cmd.StdoutPipe()
	if err := errors.Join(err1, err2, c.cmd.Start()); err != nil {
		return nil, err
	}
	c.in, c.out = in, bufio.NewReader(stdout)
	line, err := c.out.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &c.cats)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("push row: php: %s %v: %s", line, err, c.errs), c.close())
	}
	return c, nil
}

// do makes one change and returns its post and when its function returned.
func (c *pushChanger) do(op map[string]any) (id uint64, returned time.Time, err error) {
	line, _ := json.Marshal(op) // strings and numbers: never an error
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		return 0, time.Time{}, err
	}
	var got struct {
		ID       uint64
		Returned float64
		Status   string
	}
	out, err := c.out.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(out, &got)
	}
	if err == nil && got.Status != map[bool]string{true: "trash", false: "publish"}[op["op"] == "trash"] {
		err = fmt.Errorf("post %d is %q", got.ID, got.Status)
	}
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("push row: php after %s: %s %v: %s", line, out, err, c.errs)
	}
	return got.ID, time.Unix(0, int64(got.Returned*1e9)), nil
}

func (c *pushChanger) close() error {
	c.in.Close()
	return c.cmd.Wait()
}

// jsonPost is what the push row reads of the JSON's first post.
type jsonPost struct {
	ID    uint64 `json:"ID"`
	Title string `json:"post_title"`
	Image *struct {
		Src string `json:"src"`
	} `json:"image"`
}

// timeKinds times pushPublishes changes of each kind on the instance at
// base, then as many again with a second instance started with args
// beside it, into fig.Kinds; the publishes on one instance are also the
// row's P50, P99 and Max.
func (b *bench) timeKinds(ctx context.Context, site *pushSite, base string, args []string, fig *pushFigures) (err error) {
	c, err := site.startChanger(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, c.close()) }()
	bases := []string{base}
	for n := 1; n <= 2; n++ {
		if n == 2 {
			srv, err := startServer(ctx, b.serverBin, filepath.Join(b.dir, "server-push-second.log"), args)
			if err != nil {
				return err
			}
			defer func() { err = errors.Join(err, srv.stop()) }()
			if err := waitPushed(ctx, srv.baseURL); err != nil {
				return err
			}
			bases = append(bases, srv.baseURL)
		}
		b.logf("push row: %d changes of each kind, %v apart, on %d instance(s)", pushPublishes, pushGap, n)
		kinds, err := timeEachKind(ctx, c, bases)
		if err != nil {
			return err
		}
		fig.Kinds = append(fig.Kinds, kinds...)
	}
	publish := fig.Kinds[0]
	fig.P50, fig.P99, fig.Max = publish.JSON.P50, publish.JSON.P99, publish.JSON.Max
	return nil
}

// pushSearch is the kept search the push row reads: every title it
// gives holds the word, so the newest post comes first (WordPress ranks
// a one-word search by the title's match, then by date).
const pushSearch = "/load-more.php?start=0&desiredPosts=1&s=Pushed"

// timeEachKind makes pushPublishes changes of each kind, one after
// another, and times each until every instance's JSON, page and, where a
// search shows the kind, kept search show it.
func timeEachKind(ctx context.Context, c *pushChanger, bases []string) ([]pushKindFigures, error) {
	k := newPushKinds(c, bases)
	head := "/load-more.php?start=0&desiredPosts=1"
	for n := range pushPublishes {
		// The round's instances in the title: the round on two makes
		// new posts beside the first round's, which keep their titles.
		title := fmt.Sprintf("Pushed %d-%d", len(bases), n)
		if err := k.change(ctx, "publish", map[string]any{"title": title}, k.shown(head, title, func(p jsonPost) bool { return p.Title == title })); err != nil {
			return nil, err
		}
	}
	for n := range pushPublishes {
		title := fmt.Sprintf("Pushed and retitled %d-%d", len(bases), n)
		if err := k.change(ctx, "update", map[string]any{"title": title}, k.shown(head, title, func(p jsonPost) bool { return p.Title == title })); err != nil {
			return nil, err
		}
	}
	for range pushPublishes {
		if err := k.change(ctx, "trash", map[string]any{}, k.trashed(head)); err != nil {
			return nil, err
		}
		id := k.id
		if err := k.change(ctx, "untrash", map[string]any{}, k.shown(head, k.title, func(p jsonPost) bool { return p.ID == id })); err != nil {
			return nil, err
		}
	}
	for n := range pushPublishes {
		to, from := "a", "b"
		if n%2 == 1 {
			to, from = from, to
		}
		if err := k.change(ctx, "terms", map[string]any{"to": to}, k.moved(head, c.cats[to], c.cats[from])); err != nil {
			return nil, err
		}
	}
	for n := range pushPublishes {
		to, from := "bench-img-a", "bench-img-b"
		if n%2 == 1 {
			to, from = from, to
		}
		shows := func(p jsonPost) bool { return p.Image != nil && strings.Contains(p.Image.Src, to) }
		page := pushSurface{surfacePage, k.reader, []pushRead{{"/load-more.php", pageShows([]string{to}, []string{from})}}}
		if err := k.change(ctx, "image", map[string]any{"to": to[len(to)-1:]}, []pushSurface{k.json(head, shows), page}); err != nil {
			return nil, err
		}
	}
	return k.figures(), nil
}

// pushKinds is what timeEachKind's changes share: the newest post, its
// title, and the times by kind and surface.
type pushKinds struct {
	c               *pushChanger
	bases           []string
	visitor, reader *http.Client
	id              uint64
	title           string
	lat             map[string]map[string][]time.Duration
}

// newPushKinds returns the changes' state, for c's changes on bases,
// with a visitor reading the JSON and a reader reading the page as a
// reader reads it, with a client that reads only pages: the visitor's
// JSON raises its own session's posts_start, and the reader's stays at
// its first, the page's count of posts.
func newPushKinds(c *pushChanger, bases []string) *pushKinds {
	return &pushKinds{c: c, bases: bases, visitor: newVisitor(), reader: newVisitor(), lat: map[string]map[string][]time.Duration{}}
}

// change checks that no surface shows the change yet, makes it on the
// newest post (a publish makes the newest) pushGap after the last was
// shown, the check within the gap, and times it until every surface
// shows it on every instance.
func (k *pushKinds) change(ctx context.Context, kind string, op map[string]any, surfaces []pushSurface) error {
	start := time.Now()
	if err := notShownYet(ctx, k.bases, surfaces); err != nil {
		return fmt.Errorf("push row: %s after post %d's last change: %w", kind, k.id, err)
	}
	time.Sleep(pushGap - time.Since(start))
	op["op"], op["id"] = kind, k.id
	got, returned, err := k.c.do(op)
	if err != nil {
		return err
	}
	k.id = got
	if title, ok := op["title"].(string); ok {
		k.title = title
	}
	took, err := waitShown(ctx, k.bases, surfaces, returned)
	if err != nil {
		return fmt.Errorf("push row: %s of post %d: %w", kind, k.id, err)
	}
	if k.lat[kind] == nil {
		k.lat[kind] = map[string][]time.Duration{}
	}
	for surface, d := range took {
		k.lat[kind][surface] = append(k.lat[kind][surface], d)
	}
	return nil
}

// json is the surface of the JSON at path whose first post holds shows.
func (k *pushKinds) json(path string, shows func(jsonPost) bool) pushSurface {
	return pushSurface{surfaceJSON, k.visitor, []pushRead{{path, firstPost(shows)}}}
}

// shown are the surfaces of a post, titled title, shown first: the JSON
// at head whose first post holds first, the page holding the title, and
// the kept search whose first post holds first.
func (k *pushKinds) shown(head, title string, first func(jsonPost) bool) []pushSurface {
	return []pushSurface{k.json(head, first),
		{surfacePage, k.reader, []pushRead{{"/load-more.php", pageShows([]string{pageTitle(title)}, nil)}}},
		{surfaceSearch, k.visitor, []pushRead{{pushSearch, firstPost(first)}}}}
}

// trashed are the surfaces of the newest post gone: the JSON at head and
// the kept search first with another, the page without its title.
func (k *pushKinds) trashed(head string) []pushSurface {
	return []pushSurface{{surfaceJSON, k.visitor, []pushRead{{head, firstIsNot(k.id)}}},
		{surfacePage, k.reader, []pushRead{{"/load-more.php", pageShows(nil, []string{pageTitle(k.title)})}}},
		{surfaceSearch, k.visitor, []pushRead{{pushSearch, firstIsNot(k.id)}}}}
}

// moved are the surfaces of the newest post moved from category from to
// category to: to's JSON (after head) first with it and from's without
// it, to's page with its title and from's without.
func (k *pushKinds) moved(head string, to, from uint64) []pushSurface {
	id, title := k.id, pageTitle(k.title)
	return []pushSurface{
		{surfaceJSON, k.visitor, []pushRead{
			{fmt.Sprintf("%s&cat=%d", head, to), firstPost(func(p jsonPost) bool { return p.ID == id })},
			{fmt.Sprintf("%s&cat=%d", head, from), firstIsNot(id)}}},
		{surfacePage, k.reader, []pushRead{
			{fmt.Sprintf("/load-more.php?cat=%d", to), pageShows([]string{title}, nil)},
			{fmt.Sprintf("/load-more.php?cat=%d", from), pageShows(nil, []string{title})}}}}
}

// figures are each kind's spreads, in the order the kinds ran.
func (k *pushKinds) figures() []pushKindFigures {
	var out []pushKindFigures
	for _, kind := range []string{"publish", "update", "trash", "untrash", "terms", "image"} {
		lat := k.lat[kind]
		f := pushKindFigures{Kind: kind, Instances: len(k.bases), Changes: len(lat[surfaceJSON]),
			JSON: newSpread(lat[surfaceJSON]), Page: newSpread(lat[surfacePage])}
		if ds, ok := lat[surfaceSearch]; ok {
			f.Search = new(newSpread(ds))
		}
		out = append(out, f)
	}
	return out
}
