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
// number of instances: from WordPress's function's return to the JSON
// showing the change (on the later of the instances).
type pushKindFigures struct {
	Kind      string `json:"kind"`
	Instances int    `json:"instances"`
	Changes   int    `json:"changes"`
	P50       ms     `json:"p50_ms"`
	P99       ms     `json:"p99_ms"`
	Max       ms     `json:"max_ms"`
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
	fig.P50, fig.P99, fig.Max = publish.P50, publish.P99, publish.Max
	return nil
}

// timeEachKind makes pushPublishes changes of each kind, one after
// another, and times each until every instance's JSON shows it.
func timeEachKind(ctx context.Context, c *pushChanger, bases []string) ([]pushKindFigures, error) {
	client := newVisitor()
	var id uint64
	lat := map[string][]time.Duration{}
	change := func(kind string, op map[string]any, path string, shows func(jsonPost) bool) error {
		time.Sleep(pushGap)
		op["op"], op["id"] = kind, id
		got, returned, err := c.do(op)
		if err != nil {
			return err
		}
		id = got
		d, err := waitShown(ctx, client, bases, path, returned, shows)
		if err != nil {
			return fmt.Errorf("push row: %s of post %d: %w", kind, id, err)
		}
		lat[kind] = append(lat[kind], d)
		return nil
	}
	head := "/load-more.php?start=0&desiredPosts=1"
	for k := range pushPublishes {
		title := fmt.Sprintf("Pushed %d", k)
		if err := change("publish", map[string]any{"title": title}, head, func(p jsonPost) bool { return p.ID == id }); err != nil {
			return nil, err
		}
	}
	for k := range pushPublishes {
		title := fmt.Sprintf("Updated %d", k)
		if err := change("update", map[string]any{"title": title}, head, func(p jsonPost) bool { return p.Title == title }); err != nil {
			return nil, err
		}
	}
	for range pushPublishes {
		if err := change("trash", map[string]any{}, head, func(p jsonPost) bool { return p.ID != id }); err != nil {
			return nil, err
		}
		if err := change("untrash", map[string]any{}, head, func(p jsonPost) bool { return p.ID == id }); err != nil {
			return nil, err
		}
	}
	for k := range pushPublishes {
		to := []string{"a", "b"}[k%2]
		path := fmt.Sprintf("%s&cat=%d", head, c.cats[to])
		if err := change("terms", map[string]any{"to": to}, path, func(p jsonPost) bool { return p.ID == id }); err != nil {
			return nil, err
		}
	}
	for k := range pushPublishes {
		to := []string{"a", "b"}[k%2]
		shows := func(p jsonPost) bool { return p.Image != nil && strings.Contains(p.Image.Src, "bench-img-"+to) }
		if err := change("image", map[string]any{"to": to}, head, shows); err != nil {
			return nil, err
		}
	}
	var out []pushKindFigures
	for _, kind := range []string{"publish", "update", "trash", "untrash", "terms", "image"} {
		ds := lat[kind]
		slices.Sort(ds)
		out = append(out, pushKindFigures{Kind: kind, Instances: len(bases), Changes: len(ds),
			P50: percentile(ds, 50), P99: percentile(ds, 99), Max: ms(ds[len(ds)-1])})
	}
	return out, nil
}

// waitShown polls path's JSON on each of bases until its first post
// shows the change, for up to 5 s, and returns the time from returned to
// the last instance showing it.
func waitShown(ctx context.Context, client *http.Client, bases []string, path string, returned time.Time, shows func(jsonPost) bool) (time.Duration, error) {
	left := slices.Clone(bases)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		for i := 0; i < len(left); i++ {
			body, err := get(ctx, client, left[i]+path)
			if err != nil {
				return 0, err
			}
			var posts []jsonPost
			if json.Unmarshal(body, &posts) == nil && len(posts) > 0 && shows(posts[0]) {
				left = slices.Delete(left, i, i+1)
				i--
			}
		}
		if len(left) == 0 {
			return time.Since(returned), nil
		}
	}
	return 0, fmt.Errorf("not shown on %s 5 s after its function returned", strings.Join(left, ", "))
}
