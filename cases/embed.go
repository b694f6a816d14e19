package cases

import (
	"embed"
	"errors"
	"io/fs"
)

//go:embed suite/*.yaml
var suiteFS embed.FS

// Bundled loads the suite embedded in the binary (cases/suite/*.yaml), in
// lexical order, with paths such as "suite/strings.yaml". Like LoadPaths it
// returns the files that loaded and an ErrorList of the problems of the
// others.
func Bundled() ([]*File, error) {
	return loadFS(suiteFS, "suite", Options{})
}

// LoadOrBundled is LoadPaths of paths, or Bundled when there are none: the
// case files a command or test names, by default the bundled suite.
func LoadOrBundled(paths []string) ([]*File, error) {
	return LoadOrBundledWith(paths, Options{})
}

// LoadOrBundledWith is LoadOrBundled with the template variables of opts.
func LoadOrBundledWith(paths []string, opts Options) ([]*File, error) {
	if len(paths) == 0 {
		return loadFS(suiteFS, "suite", opts)
	}
	return loadPaths(paths, opts)
}

func loadFS(fsys fs.FS, dir string, opts Options) ([]*File, error) {
	names, err := fs.Glob(fsys, dir+"/*.yaml")
	if err != nil {
		return nil, err
	}
	var files []*File
	var errs ErrorList
	for _, name := range names { // fs.Glob returns names in lexical order
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			errs = append(errs, &Error{Pos: Pos{File: name}, Msg: err.Error()})
			continue
		}
		f, err := LoadWith(name, data, opts)
		if err != nil {
			var el ErrorList
			if errors.As(err, &el) {
				errs = append(errs, el...)
			}
			continue
		}
		files = append(files, f)
	}
	return files, errs.err()
}
