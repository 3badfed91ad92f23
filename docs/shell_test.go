package docs_test

import (
	"regexp"
	"slices"
	"strings"
)

var (
	// fencedShell matches a page's ```sh blocks.
	fencedShell = regexp.MustCompile("(?s)```sh\n(.*?)```")
	// pipeAtLineEnd is a pipe that continues its pipeline on the next line.
	pipeAtLineEnd = regexp.MustCompile(`\|[ \t]*\n`)
)

// shellCommand is one simple command of a page's shell blocks, as its words with quotes removed;
// pipedTo is the command its output is piped into (nil when none).
type shellCommand struct {
	words   []string
	pipedTo *shellCommand
}

// shellCommands returns the commands of every ```sh block of text, in order. A line ending in a
// backslash or a pipe continues on the next; an unquoted "#" starts a comment; commands are
// separated by newlines, ";", "&&", "||" and "|".
func shellCommands(text string) []*shellCommand {
	var out []*shellCommand
	for _, block := range fencedShell.FindAllStringSubmatch(text, -1) {
		script := strings.ReplaceAll(block[1], "\\\n", " ")
		script = pipeAtLineEnd.ReplaceAllString(script, "| ")
		for _, line := range strings.Split(script, "\n") {
			out = append(out, lineCommands(line)...)
		}
	}
	return out
}

// lineCommands splits one logical line into its commands, linking the sides of each pipe.
func lineCommands(line string) []*shellCommand {
	var out []*shellCommand
	cur := &shellCommand{}
	end := func(op string) {
		if len(cur.words) == 0 {
			return
		}
		out = append(out, cur)
		next := &shellCommand{}
		if op == "|" {
			cur.pipedTo = next
		}
		cur = next
	}
	for _, w := range shellWords(line) {
		switch w {
		case "|", "||", "&&", ";":
			end(w)
		default:
			cur.words = append(cur.words, w)
		}
	}
	end("")
	return out
}

// shellWords splits a line into words and operators as a POSIX shell does, without expansion:
// quotes group and are removed, "$(...)" stays as written, an unquoted "#" ends the line.
func shellWords(line string) []string {
	var (
		words         []string
		word          strings.Builder
		inWord        bool
		quote         rune
		substitutions int
	)
	flush := func() {
		if inWord {
			words = append(words, word.String())
		}
		word.Reset()
		inWord = false
	}
	runes := []rune(line)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case quote != 0 && r == quote && substitutions == 0:
			quote = 0
		case quote == '\'':
			word.WriteRune(r)
		case r == '$' && i+1 < len(runes) && runes[i+1] == '(':
			substitutions++
			word.WriteString("$(")
			inWord = true
			i++
		case substitutions > 0 && r == ')':
			substitutions--
			word.WriteRune(r)
		case substitutions > 0 || quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			flush()
		case r == '#' && !inWord:
			flush()
			return words
		case r == '|' || r == '&' || r == ';':
			flush()
			op := string(r)
			if i+1 < len(runes) && runes[i+1] == r && r != ';' {
				op += string(r)
				i++
			}
			words = append(words, op)
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return words
}

// is reports whether the command starts with words.
func (c *shellCommand) is(words ...string) bool {
	return len(c.words) >= len(words) && slices.Equal(c.words[:len(words)], words)
}

// arg returns the command's i-th word ("" past the end).
func (c *shellCommand) arg(i int) string {
	if i < len(c.words) {
		return c.words[i]
	}
	return ""
}

// flags returns every value of a flag, written "--name=value", "--name value" or "-n value".
func (c *shellCommand) flags(name string) []string {
	var out []string
	for i, w := range c.words {
		if v, ok := strings.CutPrefix(w, name+"="); ok {
			out = append(out, v)
		} else if w == name && i+1 < len(c.words) {
			out = append(out, c.words[i+1])
		}
	}
	return out
}

// flag returns the flag's only value ("" when it is absent or given more than once).
func (c *shellCommand) flag(name string) string {
	if v := c.flags(name); len(v) == 1 {
		return v[0]
	}
	return ""
}
