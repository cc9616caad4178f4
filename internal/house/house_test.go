// Package house holds the tests of the house's own rules: the shape of the
// code as docs/development.md states it, checked over the whole tree so
// that a change that breaks one fails `make test` rather than a review.
package house

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const (
	maxFileLines    = 400  // a production file
	maxFuncLines    = 80   // a function, but for the data tables and parsers docs/development.md names
	maxDocLines     = 12   // a declaration's doc comment
	maxMainLines    = 3600 // a ratchet: package main was 5 182 lines before connection limiting, access logging, metrics, proxies and static files left it
	modulePath      = "github.com/wploadmore/wploadmore"
	domainPackage   = modulePath + "/blog"
	exceptionsTitle = "## Long functions"
)

// root is the module's root: the tests run in this package's folder.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod two folders up from internal/house: %v", err)
	}
	return dir
}

// goFile is one parsed Go file of the tree, by its path from the root.
type goFile struct {
	path string
	fset *token.FileSet
	file *ast.File
	src  []byte
}

func (f goFile) test() bool { return strings.HasSuffix(f.path, "_test.go") }

// goFiles parses every Go file of the tree but vendored packages,
// node_modules and testdata.
func goFiles(t *testing.T) []goFile {
	t.Helper()
	top := root(t)
	var files []goFile
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != top && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || name == "testoutput") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(top, path)
		files = append(files, goFile{path: filepath.ToSlash(rel), fset: fset, file: file, src: src})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func lines(src []byte) int { return bytes.Count(src, []byte("\n")) }

func TestFileSizes(t *testing.T) {
	for _, f := range goFiles(t) {
		if f.test() {
			continue
		}
		if n := lines(f.src); n > maxFileLines {
			t.Errorf("%s has %d lines; a production file keeps under %d: split it by concern", f.path, n, maxFileLines)
		}
	}
}

// longFunctionExceptions reads the functions docs/development.md lets run
// past maxFuncLines: each a list item under its "Long functions" heading
// naming `path.go: Name` with the reason.
func longFunctionExceptions(t *testing.T) map[string]bool {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root(t), "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	item := regexp.MustCompile("^- `([^`]+\\.go): ([^`]+)`")
	allowed := map[string]bool{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			in = strings.TrimSpace(line) == exceptionsTitle
			continue
		}
		if m := item.FindStringSubmatch(line); in && m != nil {
			allowed[m[1]+": "+m[2]] = true
		}
	}
	return allowed
}

// funcName names a function as docs/development.md does: Name, or
// Type.Name for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

func TestFunctionSizes(t *testing.T) {
	allowed := longFunctionExceptions(t)
	used := map[string]bool{}
	for _, f := range goFiles(t) {
		if f.test() {
			continue
		}
		for _, decl := range f.file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := f.fset.Position(fn.End()).Line - f.fset.Position(fn.Pos()).Line + 1
			if n <= maxFuncLines {
				continue
			}
			key := f.path + ": " + funcName(fn)
			if allowed[key] {
				used[key] = true
				continue
			}
			t.Errorf("%s is %d lines; a function keeps under %d, or is a data table or parser named in docs/development.md (%q)", key, n, maxFuncLines, exceptionsTitle)
		}
	}
	for key := range allowed {
		if !used[key] {
			t.Errorf("docs/development.md names %s as a long function, but there is no such function over %d lines", key, maxFuncLines)
		}
	}
}

func TestDocComments(t *testing.T) {
	for _, f := range goFiles(t) {
		ast.Inspect(f.file, func(n ast.Node) bool {
			var doc *ast.CommentGroup
			switch d := n.(type) {
			case *ast.FuncDecl:
				doc = d.Doc
			case *ast.GenDecl:
				doc = d.Doc
			case *ast.TypeSpec:
				doc = d.Doc
			case *ast.ValueSpec:
				doc = d.Doc
			case *ast.Field:
				doc = d.Doc
			}
			if doc == nil {
				return true
			}
			from, to := f.fset.Position(doc.Pos()).Line, f.fset.Position(doc.End()).Line
			if to-from+1 > maxDocLines {
				t.Errorf("%s:%d: a doc comment of %d lines; keep it to %d and put the longer reason in docs/design.md", f.path, from, to-from+1, maxDocLines)
			}
			return true
		})
	}
}

// goList runs go list in the root.
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = root(t)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list %v: %v\n%s", args, err, stderr)
	}
	return strings.Fields(string(out))
}

func TestDomainImports(t *testing.T) {
	deps := goList(t, "-deps", domainPackage)
	for _, dep := range deps {
		forbidden := strings.HasPrefix(dep, modulePath+"/wpdb") ||
			strings.HasPrefix(dep, modulePath+"/server") ||
			strings.HasPrefix(dep, modulePath+"/session") ||
			strings.HasPrefix(dep, "github.com/go-sql-driver/") ||
			strings.HasPrefix(dep, "github.com/jmoiron/sqlx") ||
			strings.HasPrefix(dep, "github.com/gomodule/redigo") ||
			dep == "database/sql" ||
			strings.Contains(dep, "sqlite")
		if forbidden {
			t.Errorf("the domain package %s depends on %s; it imports no database, driver or server package", domainPackage, dep)
		}
	}
}

// listingKinds are the domain package's exported types that other packages
// may not switch on or assert to: the contract's methods serve every kind.
func listingKinds(t *testing.T, files []goFile) map[string]bool {
	t.Helper()
	kinds := map[string]bool{}
	for _, f := range files {
		if !strings.HasPrefix(f.path, "blog/") || f.test() {
			continue
		}
		for _, decl := range f.file.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				if ts := spec.(*ast.TypeSpec); ts.Name.IsExported() {
					kinds[ts.Name.Name] = true
				}
			}
		}
	}
	if len(kinds) == 0 {
		t.Fatalf("no exported types in %s", domainPackage)
	}
	return kinds
}

// TestNoTypeSwitchOnKinds holds the one protocol: outside package blog, no
// type switch or type assertion names a blog type, and no production code
// asserts a dependency to a wider interface to find an ability it may lack.
func TestNoTypeSwitchOnKinds(t *testing.T) {
	files := goFiles(t)
	kinds := listingKinds(t, files)
	isKind := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == "blog" && kinds[sel.Sel.Name]
	}
	for _, f := range files {
		if strings.HasPrefix(f.path, "blog/") {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeAssertExpr:
				if x.Type != nil && isKind(x.Type) {
					t.Errorf("%s: a type assertion to a listing kind outside package blog", f.fset.Position(x.Pos()))
				}
			case *ast.TypeSwitchStmt:
				for _, stmt := range x.Body.List {
					for _, e := range stmt.(*ast.CaseClause).List {
						if isKind(e) {
							t.Errorf("%s: a type switch on listing kinds outside package blog", f.fset.Position(e.Pos()))
						}
					}
				}
			}
			return true
		})
	}
}

// TestOneLRU holds the LRUs to one: container/list, which every hand-made
// LRU was built on, is imported by the shared one alone.
func TestOneLRU(t *testing.T) {
	for _, f := range goFiles(t) {
		if f.test() || strings.HasPrefix(f.path, "internal/lru/") {
			continue
		}
		for _, imp := range f.file.Imports {
			if imp.Path.Value == `"container/list"` {
				t.Errorf("%s imports container/list: build the LRU on internal/lru", f.path)
			}
		}
	}
}

func TestMainIsThin(t *testing.T) {
	n := 0
	for _, f := range goFiles(t) {
		if !f.test() && filepath.Dir(f.path) == "server" {
			n += lines(f.src)
		}
	}
	t.Logf("package main (server/) has %d lines of production code", n)
	if n > maxMainLines {
		t.Errorf("package main (server/) has %d lines of production code, over %d: mechanisms go to packages of their own", n, maxMainLines)
	}
}

// staleNames are methods the code once had; a name that still says them
// misleads the reader who looks for them.
var staleNames = regexp.MustCompile(`\b(PostsIn|PostsAfterIn|PostsAfter)\b`)

func TestNoStaleNames(t *testing.T) {
	top := root(t)
	err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != top && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testoutput") {
				return filepath.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(name)
		if path == filepath.Join(top, "internal", "house", "house_test.go") {
			return nil // this file names them to find them
		}
		if !slices.Contains([]string{".go", ".md", ".mustache", ".js", ".mjs", ".php", ".txt"}, ext) || name == "CHANGELOG.md" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := staleNames.FindString(line); m != "" {
				rel, _ := filepath.Rel(top, path)
				t.Errorf("%s:%d names %s, a method that no longer exists", rel, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadmePrerequisites holds the README to .ci/run: every Debian package
// CI installs for the tests is one the README tells a newcomer to install.
func TestReadmePrerequisites(t *testing.T) {
	top := root(t)
	ci, err := os.ReadFile(filepath.Join(top, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(top, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{}
	for _, m := range regexp.MustCompile(`missing\+=\(([^)]*)\)`).FindAllSubmatch(ci, -1) {
		for _, p := range strings.Fields(string(m[1])) {
			pkgs[p] = true
		}
	}
	if len(pkgs) == 0 {
		t.Fatal(".ci/run names no packages as missing+=(…)")
	}
	for p := range pkgs {
		if !regexp.MustCompile(`(^|[^a-z0-9-])` + regexp.QuoteMeta(p) + `([^a-z0-9-]|$)`).Match(readme) {
			t.Errorf("README.md does not list %s, which .ci/run installs for make test", p)
		}
	}
}
