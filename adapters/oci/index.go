package oci

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/NVIDIA/aicr/ports"
)

// indexEntry is one chart version of a Helm repository index, the part the mirror reads.
type indexEntry struct {
	Version string   `json:"version"`
	URLs    []string `json:"urls"`
	Digest  string   `json:"digest"`
}

// helmIndex is the part of a Helm repository index the mirror reads.
type helmIndex struct {
	Entries map[string][]indexEntry `json:"entries"`
}

// errIndexTooLarge says an index went past maxIndexBytes.
var errIndexTooLarge = fmt.Errorf("index larger than %d bytes: %w", maxIndexBytes, ports.ErrArchiveRejected)

// readIndexEntries reads a Helm repository index from r and returns the versions of chart
// name. A block-style YAML index (what Helm writes) is read line by line and only name's
// block under entries is kept and parsed, so memory follows that chart, not the repository
// (a large repository's index is tens of MiB, and a YAML tree of it ten times that). A JSON
// index (which Helm also reads) is decoded whole into the few fields above. Reading stops
// with ports.ErrArchiveRejected past maxIndexBytes.
func readIndexEntries(r io.Reader, name string) ([]indexEntry, error) {
	in := bufio.NewReaderSize(&limitedReader{r: r, left: maxIndexBytes}, 64<<10)
	first, err := in.Peek(1)
	for err == nil && strings.ContainsRune(" \t\r\n", rune(first[0])) {
		_, _ = in.ReadByte()
		first, err = in.Peek(1)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(first) == 1 && first[0] == '{' {
		var idx helmIndex
		if decodeErr := json.NewDecoder(in).Decode(&idx); decodeErr != nil {
			return nil, fmt.Errorf("parse JSON index: %w", decodeErr)
		}
		return idx.Entries[name], nil
	}
	block, err := entriesBlock(in, name)
	if err != nil || block == "" {
		return nil, err
	}
	var idx helmIndex
	if err := yaml.Unmarshal([]byte("entries:\n"+block), &idx); err != nil {
		return nil, fmt.Errorf("parse index entries of %s: %w", name, err)
	}
	return idx.Entries[name], nil
}

// entriesBlock returns the lines of key name under the top-level entries mapping of a
// block-style YAML document, from the key's line up to the next key at its indentation or
// less (Helm puts a key's sequence items at the key's own indentation), or "" when absent.
func entriesBlock(in *bufio.Reader, name string) (string, error) {
	var (
		block     strings.Builder
		inEntries bool
		capturing bool
		keyIndent = -1
	)
	for {
		line, err := in.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		text := strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimLeft(text, " ")
		indent := len(text) - len(trimmed)
		significant := trimmed != "" && !strings.HasPrefix(trimmed, "#")
		switch {
		case !significant:
		case indent == 0:
			if capturing {
				return block.String(), nil
			}
			inEntries = strings.TrimSpace(strings.SplitN(trimmed, "#", 2)[0]) == "entries:"
		case !inEntries:
		case keyIndent < 0 || indent < keyIndent || (indent == keyIndent && !strings.HasPrefix(trimmed, "-")):
			if capturing {
				return block.String(), nil
			}
			keyIndent = indent
			key, _, _ := strings.Cut(trimmed, ":")
			capturing = unquoteKey(key) == name
		}
		if capturing {
			block.WriteString(text)
			block.WriteByte('\n')
		}
		if err != nil {
			return block.String(), nil
		}
	}
}

// unquoteKey returns a YAML mapping key without its single or double quotes.
func unquoteKey(key string) string {
	key = strings.TrimSpace(key)
	if len(key) >= 2 && key[0] == '\'' && key[len(key)-1] == '\'' {
		return strings.ReplaceAll(key[1:len(key)-1], "''", "'")
	}
	if unquoted, err := strconv.Unquote(key); err == nil && strings.HasPrefix(key, `"`) {
		return unquoted
	}
	return key
}

// limitedReader reads from r until left bytes are spent, then fails with errIndexTooLarge
// (io.LimitReader would end quietly and a truncated index would read as a complete one).
type limitedReader struct {
	r    io.Reader
	left int64
}

// Read implements io.Reader.
func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var probe [1]byte
		if n, _ := l.r.Read(probe[:]); n > 0 {
			return 0, errIndexTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
