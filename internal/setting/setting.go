// Package setting describes a component's settings as one table: each
// flag's name, default, help and check, declared by the component beside
// the Config it fills. The server collects the tables into its flags, its
// environment variables and its configuration reference, so that none of
// them is written twice.
package setting

import (
	"flag"
	"fmt"
	"time"
)

// A Setting is one flag of a component, bound to the field it sets.
type Setting struct {
	Name  string     // the flag's name without its dash: "query-timeout"
	Value flag.Value // the field, holding its default until a source sets it
	// Usage is the help -h and the reference show. A back-quoted word
	// names the value, as in package flag.
	Usage string
	// Default, when set, is how the reference shows a default that
	// depends on the machine, in place of the value's own.
	Default string
	// Check, when set, refuses the value once every source has been read.
	// Its error says what is wrong, without the flag's name, which
	// Group.Check puts before it.
	Check func() error
	// Field is the Config field the flag sets, for a component whose own
	// errors name their field (see Group.FieldError).
	Field string
	// Secret says the value may hold a password, so a NAME_FILE
	// environment variable may give it instead, as Docker mounts secrets.
	Secret bool
}

// A Group is one component's table of settings.
type Group struct {
	Component string // heads the group in the reference: "Database"
	Settings  []Setting
	// Finish, when set, runs after every setting's own check: it fills in
	// the defaults that depend on another setting and refuses the
	// combinations no one setting can. given says whether the command
	// line or the environment set a flag. Its errors name their flags.
	Finish func(given func(name string) bool) error
}

// Register declares every setting of g in fs.
func (g Group) Register(fs *flag.FlagSet) {
	for _, s := range g.Settings {
		if r, ok := s.Value.(registerer); ok {
			r.register(fs, s.Name, s.Help())
			continue
		}
		fs.Var(s.Value, s.Name, s.Help())
	}
}

// Parse turns the settings read as text (see Parsed) into their fields.
// It returns the first refusal, naming its flag.
func (g Group) Parse() error {
	for _, s := range g.Settings {
		if p, ok := s.Value.(parser); ok {
			if err := p.parse(); err != nil {
				return fmt.Errorf("-%s: %w", s.Name, err)
			}
		}
	}
	return nil
}

// Check runs each setting's check in order, then the group's Finish,
// which given tells what was set. It returns the first refusal, naming
// its flag.
func (g Group) Check(given func(name string) bool) error {
	for _, s := range g.Settings {
		if s.Check == nil {
			continue
		}
		if err := s.Check(); err != nil {
			return fmt.Errorf("-%s: %w", s.Name, err)
		}
	}
	if g.Finish != nil {
		return g.Finish(given)
	}
	return nil
}

// FieldError words reason, a component's refusal of its Config's field,
// as the refusal of the flag of g that sets that field. It returns nil
// when no flag does: the field then holds one of the component's own
// defaults, and its error is better left as the component words it.
func (g Group) FieldError(field, reason string) error {
	for _, s := range g.Settings {
		if s.Field != "" && s.Field == field {
			return fmt.Errorf("-%s: %s", s.Name, reason)
		}
	}
	return nil
}

// Help is s's usage as -h and the reference show it: a duration's ends
// with how to write one.
func (s Setting) Help() string {
	if _, ok := s.Value.(*Value[time.Duration]); ok {
		return s.Usage + durationUsage
	}
	return s.Usage
}

// Explain adds more to the usage of g's setting name, for a rule another
// component derives from that setting, which only that component knows.
func (g Group) Explain(name, more string) {
	for i := range g.Settings {
		if g.Settings[i].Name == name {
			g.Settings[i].Usage += more
			return
		}
	}
	panic("setting: no setting " + name + " to explain") // a typo in the server's own table
}

// DefaultText is the default the reference shows for s: its Default, or
// else the value it holds before any source sets it.
func (s Setting) DefaultText() string {
	if s.Default != "" {
		return s.Default
	}
	return s.Value.String()
}
