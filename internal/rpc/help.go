package rpc

import (
	"sort"
	"strconv"
	"strings"
)

// HiddenCategory is the category of methods that work but are left out of
// the help list (testing aids such as echo).
const HiddenCategory = "hidden"

// Usage returns the method's one-line synopsis: its name, then its
// parameters, strings quoted, optional ones grouped in parentheses.
func (m *Method) Usage() string {
	var b strings.Builder
	b.WriteString(m.Name)
	open := false
	for _, p := range m.Params {
		if p.Hidden {
			continue
		}
		if p.Optional && !open {
			b.WriteString(" (")
			open = true
		}
		b.WriteByte(' ')
		b.WriteString(p.placeholder())
	}
	if open {
		b.WriteString(" )")
	}
	return b.String()
}

// placeholder is how a parameter shows in the synopsis.
func (p Param) placeholder() string {
	switch p.Type {
	case TypeString, TypeHex:
		return strconv.Quote(p.Name)
	case TypeObject:
		return "{...}"
	case TypeArray:
		return "[...]"
	}
	return p.Name
}

// Help returns the full help text of the method, generated from its
// description and parameter table. The same text is the message of the -1
// error for a wrong number of arguments.
func (m *Method) Help() string {
	var b strings.Builder
	b.WriteString(m.Usage())
	if m.Description != "" {
		b.WriteString("\n\n")
		b.WriteString(strings.TrimRight(m.Description, "\n"))
	}
	shown := 0
	for _, p := range m.Params {
		if !p.Hidden {
			shown++
		}
	}
	if shown > 0 {
		b.WriteString("\n\nArguments:\n")
		width := 0
		for _, p := range m.Params {
			width = max(width, len(p.Name))
		}
		for i, p := range m.Params {
			if !p.Hidden {
				writeParam(&b, strconv.Itoa(i+1)+". ", p, width, "")
			}
		}
	}
	if m.Result != "" {
		b.WriteString("\nResult:\n")
		b.WriteString(strings.TrimRight(m.Result, "\n"))
		b.WriteByte('\n')
	}
	if len(m.Examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, ex := range m.Examples {
			b.WriteString("> descwallet-cli ")
			b.WriteString(m.Name)
			if ex != "" {
				b.WriteByte(' ')
				b.WriteString(ex)
			}
			b.WriteByte('\n')
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeParam writes one argument line and, indented, its documented
// fields.
func writeParam(b *strings.Builder, prefix string, p Param, width int, indent string) {
	b.WriteString(indent)
	b.WriteString(prefix)
	b.WriteString(p.Name)
	b.WriteString(strings.Repeat(" ", width-len(p.Name)+4))
	b.WriteByte('(')
	b.WriteString(p.Type.String())
	switch {
	case !p.Optional:
		b.WriteString(", required")
	case p.Default != "":
		b.WriteString(", optional, default=")
		b.WriteString(p.Default)
	default:
		b.WriteString(", optional")
	}
	b.WriteString(") ")
	b.WriteString(p.Description)
	b.WriteByte('\n')
	if len(p.Fields) > 0 {
		w := 0
		for _, f := range p.Fields {
			w = max(w, len(f.Name))
		}
		for _, f := range p.Fields {
			writeParam(b, "", f, w, indent+"     ")
		}
	}
}

// HelpList returns the list of visible methods grouped by category:
// "== Category ==" headings in alphabetical order, each followed by the
// synopses of its methods in alphabetical order.
func HelpList(methods []*Method) string {
	sorted := make([]*Method, 0, len(methods))
	for _, m := range methods {
		if m.Category != HiddenCategory {
			sorted = append(sorted, m)
		}
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Category != sorted[j].Category {
			return sorted[i].Category < sorted[j].Category
		}
		return sorted[i].Name < sorted[j].Name
	})
	var b strings.Builder
	cat := ""
	for i, m := range sorted {
		if i == 0 || m.Category != cat {
			if i > 0 {
				b.WriteByte('\n')
			}
			cat = m.Category
			b.WriteString("== ")
			b.WriteString(categoryTitle(cat))
			b.WriteString(" ==\n")
		}
		b.WriteString(m.Usage())
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// categoryTitle capitalises a category name for the help list.
func categoryTitle(cat string) string {
	if cat == "" {
		return "Other"
	}
	return strings.ToUpper(cat[:1]) + cat[1:]
}
