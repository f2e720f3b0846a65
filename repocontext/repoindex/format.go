package repoindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// The cache file's layout. gob spent a tenth of an update encoding and
// decoding the whole index through reflection, one allocation per string;
// this one is a header, every string of the index end to end (decoded as
// one string the index's strings are slices of), then the structure:
// varints, strings as their lengths, postings as raw little-endian uint32s.
//
//	magic "WIDX" | uvarint len(blob) | blob | structure
const magic = "WIDX"

// encoder appends the structure to meta and string bytes to blob.
type encoder struct{ blob, meta []byte }

func (e *encoder) uint(v uint64) { e.meta = binary.AppendUvarint(e.meta, v) }
func (e *encoder) int(v int64)   { e.meta = binary.AppendVarint(e.meta, v) }

func (e *encoder) str(s string) {
	e.uint(uint64(len(s)))
	e.blob = append(e.blob, s...)
}

func (e *encoder) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

func (e *encoder) u32s(vs []uint32) {
	e.uint(uint64(len(vs)))
	for _, v := range vs {
		e.meta = binary.LittleEndian.AppendUint32(e.meta, v)
	}
}

// marshal lays the index out as the cache file holds it, in three parts
// to write one after another (joining them would copy the index again).
func (x *Index) marshal() [3][]byte {
	e := x.sizedEncoder()
	e.int(int64(x.Version))
	e.str(x.Commit)
	e.uint(math.Float64bits(x.AvgLen))
	e.int(int64(x.Built))
	e.uint(uint64(len(x.Files)))
	for _, f := range x.Files {
		e.str(f.Path)
		e.int(f.Size)
		e.str(f.Lang)
		e.uint(uint64(f.Kind))
		e.int(int64(f.Lines))
		e.int(int64(f.Len))
		e.uint(uint64(len(f.Defs)))
		for _, d := range f.Defs {
			e.str(d.Name)
			e.str(d.Kind)
			e.str(d.Parent)
			e.int(int64(d.Start))
			e.int(int64(d.End))
			e.int(int64(d.Doc))
		}
	}
	e.strs(x.Terms)
	e.u32s(x.Post)
	e.u32s(x.PostAt)
	e.strs(x.Literals)
	e.u32s(x.Lit)
	e.u32s(x.LitAt)
	return [3][]byte{binary.AppendUvarint([]byte(magic), uint64(len(e.blob))), e.blob, e.meta}
}

// sizedEncoder allocates the blob exactly and the structure about right:
// growing them by appends was most of the encoding.
func (x *Index) sizedEncoder() *encoder {
	blob, meta := len(x.Commit), 64+4*(len(x.Post)+len(x.PostAt)+len(x.Lit)+len(x.LitAt))
	for _, f := range x.Files {
		blob += len(f.Path) + len(f.Lang)
		meta += 16
		for _, d := range f.Defs {
			blob += len(d.Name) + len(d.Kind) + len(d.Parent)
			meta += 12
		}
	}
	for _, ss := range [][]string{x.Terms, x.Literals} {
		for _, s := range ss {
			blob += len(s)
			meta += 2
		}
	}
	return &encoder{blob: make([]byte, 0, blob), meta: make([]byte, 0, meta)}
}

var errCorrupt = errors.New("corrupt index file")

// decoder reads the structure from meta, taking strings from blob in
// order; the first error sticks and every later read returns zero.
type decoder struct {
	blob string
	meta []byte
	err  error
}

func (d *decoder) fail() { d.err, d.meta, d.blob = errCorrupt, nil, "" }

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.meta)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.meta = d.meta[n:]
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.meta)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.meta = d.meta[n:]
	return v
}

// count reads a length whose elements take at least size bytes each of
// what is left: a corrupt length fails here, before anything is allocated.
func (d *decoder) count(size int) int {
	n := d.uint()
	if n > uint64(len(d.meta)/size) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.blob)) {
		d.fail()
		return ""
	}
	s := d.blob[:n]
	d.blob = d.blob[n:]
	return s
}

// strs and u32s decode an empty list as nil, as gob did.
func (d *decoder) strs() []string {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.str()
	}
	return ss
}

func (d *decoder) u32s() []uint32 {
	n := d.count(4)
	if n == 0 {
		return nil
	}
	vs := make([]uint32, n)
	for i := range vs {
		vs[i] = binary.LittleEndian.Uint32(d.meta[4*i:])
	}
	d.meta = d.meta[4*len(vs):]
	return vs
}

// unmarshal decodes what marshal wrote, refusing anything that does not
// describe a whole, consistent index.
func unmarshal(data []byte) (*Index, error) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: not an index", errCorrupt)
	}
	n, k := binary.Uvarint(data[len(magic):])
	rest := data[len(magic)+max(k, 0):]
	if k <= 0 || n > uint64(len(rest)) {
		return nil, errCorrupt
	}
	d := &decoder{blob: string(rest[:n]), meta: rest[n:]}
	x := &Index{Version: int(d.int()), Commit: d.str(), AvgLen: math.Float64frombits(d.uint()), Built: time.Duration(d.int())}
	x.Files = make([]File, d.count(7))
	for i := range x.Files {
		f := &x.Files[i]
		f.Path, f.Size, f.Lang, f.Kind = d.str(), d.int(), d.str(), Kind(d.uint())
		f.Lines, f.Len = int(d.int()), int(d.int())
		if n := d.count(6); n > 0 {
			f.Defs = make([]Def, n)
		}
		for j := range f.Defs {
			f.Defs[j] = Def{Name: d.str(), Kind: d.str(), Parent: d.str(), Start: int(d.int()), End: int(d.int()), Doc: int(d.int())}
		}
	}
	x.Terms, x.Post, x.PostAt = d.strs(), d.u32s(), d.u32s()
	x.Literals, x.Lit, x.LitAt = d.strs(), d.u32s(), d.u32s()
	if d.err != nil || len(d.meta) != 0 || len(d.blob) != 0 {
		return nil, errCorrupt
	}
	if err := x.check(); err != nil {
		return nil, err
	}
	return x, nil
}

// check refuses an index whose postings name files or terms it has not:
// ranking indexes by them without looking.
func (x *Index) check() error {
	if err := checkLists(x.PostAt, x.Post, len(x.Terms), func(e uint32) bool { return int(e>>8) < len(x.Files) }); err != nil {
		return fmt.Errorf("%w: terms: %v", errCorrupt, err)
	}
	if err := checkLists(x.LitAt, x.Lit, len(x.Literals), func(e uint32) bool { return int(e) < len(x.Files) }); err != nil {
		return fmt.Errorf("%w: literals: %v", errCorrupt, err)
	}
	for _, f := range x.Files {
		if f.Kind > Binary {
			return fmt.Errorf("%w: %s has kind %d", errCorrupt, f.Path, f.Kind)
		}
	}
	return nil
}

func checkLists(at, flat []uint32, keys int, ok func(uint32) bool) error {
	if len(at) != keys+1 || at[keys] != uint32(len(flat)) {
		return fmt.Errorf("%d offsets for %d keys and %d entries", len(at), keys, len(flat))
	}
	for i := 0; i < keys; i++ {
		if at[i] > at[i+1] {
			return fmt.Errorf("offsets decrease at %d", i)
		}
	}
	for _, e := range flat {
		if !ok(e) {
			return fmt.Errorf("entry %d names no file", e)
		}
	}
	return nil
}
