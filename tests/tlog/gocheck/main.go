// gocheck: gruft's C2SP log checked by Go's own transparency-log code (golang.org/x/mod/sumdb/note
// and golang.org/x/mod/sumdb/tlog, the code behind the Go checksum database), not by gruft's.
//
//	gocheck PREFIX VKEY [OLD_SIZE]
//
// PREFIX is the log's tile prefix (http://host:port/log/tlog). It fetches PREFIX/checkpoint, opens
// the note with the log's verifier key (note.Open), reads every tile and entry bundle the tree needs
// through tlog.TileHashReader (which checks each tile against the checkpoint's root), checks each
// entry hashes to its level-0 tile hash (tlog.RecordHash), proves and checks every entry's
// inclusion (tlog.ProveRecord, tlog.CheckRecord) and, given OLD_SIZE, the consistency of the tree of
// OLD_SIZE with the checkpoint's (tlog.ProveTree, tlog.CheckTree). It prints one JSON object:
// {"origin", "size", "root", "entries": [each entry as text], "old_root"} or exits 1 naming the
// failure.
package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const height = 8 // tiles of 2^8 = 256 hashes

var prefix string

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "gocheck: "+format+"\n", args...)
	os.Exit(1)
}

func get(path string) []byte {
	resp, err := http.Get(prefix + "/" + path)
	if err != nil {
		fail("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		fail("GET %s: %d %v", path, resp.StatusCode, err)
	}
	return body
}

// c2spPath is a tile's C2SP path: Go's tile/8/L/N without the height.
func c2spPath(t tlog.Tile) string {
	return "tile/" + strings.TrimPrefix(t.Path(), "tile/8/")
}

// tiles reads each tile once (TileHashReader checks each against the root when it reads it).
type tiles map[string][]byte

func (tiles) Height() int { return height }
func (seen tiles) ReadTiles(ts []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(ts))
	for i, t := range ts {
		path := c2spPath(t)
		if seen[path] == nil {
			seen[path] = get(path)
		}
		out[i] = seen[path]
	}
	return out, nil
}
func (tiles) SaveTiles([]tlog.Tile, [][]byte) {}

func main() {
	if len(os.Args) < 3 {
		fail("usage: gocheck PREFIX VKEY [OLD_SIZE]")
	}
	prefix = strings.TrimRight(os.Args[1], "/")
	verifier, err := note.NewVerifier(os.Args[2])
	if err != nil {
		fail("the vkey: %v", err)
	}
	msg := get("checkpoint")
	n, err := note.Open(msg, note.VerifierList(verifier))
	if err != nil {
		fail("note.Open: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 {
		fail("the checkpoint has %d lines", len(lines))
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail("the size: %v", err)
	}
	rootBytes, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(rootBytes) != tlog.HashSize {
		fail("the root: %v", err)
	}
	var root tlog.Hash
	copy(root[:], rootBytes)
	tree := tlog.Tree{N: size, Hash: root}
	reader := tlog.TileHashReader(tree, tiles{})
	got, err := tlog.TreeHash(size, reader)
	if err != nil || got != root {
		fail("tlog.TreeHash over the tiles: %v (%v, want %v)", err, got, root)
	}
	var entries []string
	for start := int64(0); start < size; start += 256 {
		width := size - start
		if width > 256 {
			width = 256
		}
		t := tlog.Tile{H: height, L: 0, N: start / 256, W: int(width)}
		path := "tile/entries/" + strings.TrimPrefix(t.Path(), "tile/8/0/")
		bundle := get(path)
		for i := int64(0); i < width; i++ {
			if len(bundle) < 2 {
				fail("%s: cut short at entry %d", path, i)
			}
			length := int(binary.BigEndian.Uint16(bundle))
			if len(bundle) < 2+length {
				fail("%s: entry %d cut short", path, i)
			}
			entry := bundle[2 : 2+length]
			bundle = bundle[2+length:]
			index := start + i
			hashes, err := reader.ReadHashes([]int64{tlog.StoredHashIndex(0, index)})
			if err != nil || hashes[0] != tlog.RecordHash(entry) {
				fail("entry %d does not hash to its level-0 tile hash: %v", index, err)
			}
			proof, err := tlog.ProveRecord(size, index, reader)
			if err != nil {
				fail("tlog.ProveRecord(%d): %v", index, err)
			}
			if err := tlog.CheckRecord(proof, size, root, index, tlog.RecordHash(entry)); err != nil {
				fail("tlog.CheckRecord(%d): %v", index, err)
			}
			entries = append(entries, string(entry))
		}
		if len(bundle) != 0 {
			fail("%s: %d bytes after its entries", path, len(bundle))
		}
	}
	out := map[string]interface{}{"origin": lines[0], "size": size,
		"root": base64.StdEncoding.EncodeToString(root[:]), "entries": entries}
	if len(os.Args) > 3 {
		old, err := strconv.ParseInt(os.Args[3], 10, 64)
		if err != nil {
			fail("OLD_SIZE: %v", err)
		}
		oldRoot, err := tlog.TreeHash(old, reader)
		if err != nil {
			fail("tlog.TreeHash(%d): %v", old, err)
		}
		proof, err := tlog.ProveTree(size, old, reader)
		if err != nil {
			fail("tlog.ProveTree: %v", err)
		}
		if err := tlog.CheckTree(proof, size, root, old, oldRoot); err != nil {
			fail("tlog.CheckTree: %v", err)
		}
		out["old_root"] = base64.StdEncoding.EncodeToString(oldRoot[:])
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
