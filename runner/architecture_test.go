package runner_test

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// module is the import path of this module's root.
const module = "github.com/respcheck/respcheck/"

// TestArchitecture keeps docs/architecture.md true: every package's
// imports of this module are those its row in the Imports table names
// (cmd/respcheck's "any" excepted), every package has a row, and every repository file the page
// names in backquotes exists; and no non-test file imports testing.
func TestArchitecture(t *testing.T) {
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	allowed := importRules(t, string(doc))
	actual := moduleImports(t, "..")
	for pkg, imports := range actual {
		rule, ok := allowed[pkg]
		if !ok {
			t.Errorf("docs/architecture.md: package %s has no row in the Imports table", pkg)
			continue
		}
		if slices.Equal(rule, []string{"any"}) {
			continue
		}
		for _, imp := range imports {
			if !slices.Contains(rule, imp) {
				t.Errorf("%s imports %s, which its row in docs/architecture.md does not allow (%v)", pkg, imp, rule)
			}
		}
		for _, imp := range rule {
			if !slices.Contains(imports, imp) {
				t.Errorf("docs/architecture.md: the row of %s names %s, which it does not import", pkg, imp)
			}
		}
	}
	for pkg := range allowed {
		if _, ok := actual[pkg]; !ok {
			t.Errorf("docs/architecture.md: the Imports table names %s, which is not a package", pkg)
		}
	}
	named := regexp.MustCompile("`((?:resp|cases|runner|cmd|adapters|scripts|docs|testdata)/[A-Za-z0-9_./-]+\\.(?:go|js|py|rb|php|c|sh|md|tsv|tmpl|html))`")
	for _, m := range named.FindAllStringSubmatch(string(doc), -1) {
		if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
			t.Errorf("docs/architecture.md names %s, which does not exist", m[1])
		}
	}
	checkPackageFiles(t, string(doc))
}

// checkPackageFiles: a file the Packages table names by its base name
// (`proxy.go`) is in the folder of its row (one of them, for a row of two).
func checkPackageFiles(t *testing.T, doc string) {
	_, table, ok := strings.Cut(doc, "| package | job |")
	if !ok {
		t.Fatal("docs/architecture.md: no Packages table (| package | job |)")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	dirRE := regexp.MustCompile("`([a-z/]+/)`")
	fileRE := regexp.MustCompile("`([A-Za-z0-9_.-]+\\.(?:go|tmpl|tsv))`")
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.Contains(cells[1], "`") {
			continue
		}
		var dirs []string
		for _, m := range dirRE.FindAllStringSubmatch(cells[1], -1) {
			dirs = append(dirs, m[1])
		}
		for _, m := range fileRE.FindAllStringSubmatch(strings.Join(cells[2:], "|"), -1) {
			found := false
			for _, d := range dirs {
				if _, err := os.Stat(filepath.Join("..", d, m[1])); err == nil {
					found = true
				}
			}
			if !found {
				t.Errorf("docs/architecture.md: the row of %v names %s, which is in none of its folders", dirs, m[1])
			}
		}
	}
}

// importRules reads the Imports table: package → the packages of ours it
// may import ("nothing" is none, "any" any).
func importRules(t *testing.T, doc string) map[string][]string {
	_, table, ok := strings.Cut(doc, "| package | imports of ours |")
	if !ok {
		t.Fatal("docs/architecture.md: no Imports table (| package | imports of ours |)")
	}
	code := regexp.MustCompile("`([^`]+)`")
	rules := map[string][]string{}
	sc := bufio.NewScanner(strings.NewReader(table))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "| `") {
			if len(rules) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(line, "|")
		pkg := strings.Trim(strings.TrimSpace(cells[1]), "`")
		var may []string
		switch strings.TrimSpace(cells[2]) {
		case "nothing":
		case "any":
			may = []string{"any"}
		default:
			// Backquoted names before any parenthesis (which explains).
			list, _, _ := strings.Cut(cells[2], "(")
			for _, m := range code.FindAllStringSubmatch(list, -1) {
				may = append(may, m[1])
			}
			// A parenthesis may sit between names: take the names after it too.
			for _, part := range strings.Split(cells[2], ")")[1:] {
				before, _, _ := strings.Cut(part, "(")
				for _, m := range code.FindAllStringSubmatch(before, -1) {
					may = append(may, m[1])
				}
			}
		}
		rules[pkg] = may
	}
	return rules
}

// moduleImports is, for each package under root (its path relative to
// the module), the packages of this module its non-test files import.
func moduleImports(t *testing.T, root string) map[string][]string {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if p == "testing" {
				// A library's users must not link the testing package
				// (its flags) by importing ours: runner.Test takes a T.
				t.Errorf("%s imports testing outside a test", path)
			}
			if ours, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[pkg], ours) {
				out[pkg] = append(out[pkg], ours)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
