package repoindex

import "strings"

// The new index of Update, laid out without going back through per-file
// maps of strings: a reused file's terms stay base term ids, read off
// base's postings once; only fresh files' terms are looked up by name.
// Postings and literal lists come out in file order, as Build writes them;
// term and literal ids may differ from a cold build's, what they name does
// not.

// assemble lays out the listing: reuse[i] is the base file index of listing
// entry i, or -1 when d indexed it afresh.
func (d *deriver) assemble(reuse []int) *Index {
	b := d.base
	b.ensureMaps()
	x := &Index{Files: make([]File, len(reuse))}
	termAt, termOf := byFile(b.Post, b.PostAt, len(b.Files), reuse, true)
	litAt, litOf := byFile(b.Lit, b.LitAt, len(b.Files), reuse, false)

	terms := append([]string{}, b.Terms...)
	newTerm := map[string]uint32{}
	termID := func(t string) uint32 {
		if id, ok := b.termIDs[t]; ok {
			return uint32(id)
		}
		id, ok := newTerm[t]
		if !ok {
			id = uint32(len(terms))
			t = strings.Clone(t) // see assembler.add
			newTerm[t], terms = id, append(terms, t)
		}
		return id
	}
	lits := append([]string{}, b.Literals...)
	litIDs := make(map[string]uint32, len(b.Literals))
	for i, l := range b.Literals {
		litIDs[l] = uint32(i)
	}
	litID := func(l string) uint32 {
		id, ok := litIDs[l]
		if !ok {
			id = uint32(len(lits))
			l = strings.Clone(l)
			litIDs[l], lits = id, append(lits, l)
		}
		return id
	}

	// Per listing entry: its (term id << 8 | tf) entries and literal ids.
	fileTerms := make([][]uint64, len(reuse))
	fileLits := make([][]uint64, len(reuse))
	total := 0
	for i, bf := range reuse {
		if bf >= 0 {
			x.Files[i] = b.Files[bf]
			fileTerms[i] = termOf[termAt[bf]:termAt[bf+1]:termAt[bf+1]]
			fileLits[i] = litOf[litAt[bf]:litAt[bf+1]:litAt[bf+1]]
		} else {
			x.Files[i] = d.files[i]
			for k, t := range d.terms[i].terms {
				fileTerms[i] = append(fileTerms[i], uint64(termID(t))<<8|uint64(min(d.terms[i].tf[k], 255)))
			}
			for _, l := range d.lits[i] {
				id := uint64(litID(l))
				if n := len(fileLits[i]); n == 0 || fileLits[i][n-1] != id {
					fileLits[i] = append(fileLits[i], id)
				}
			}
		}
		total += x.Files[i].Len
	}
	if len(reuse) > 0 {
		x.AvgLen = float64(total) / float64(len(reuse))
	}
	x.Terms, x.Post, x.PostAt = postings(terms, fileTerms, true)
	x.Literals, x.Lit, x.LitAt = postings(lits, fileLits, false)
	return x
}

// byFile turns flat per-key postings (file<<8|tf when withTF, else the
// file) into per-base-file entries (key<<8|tf, or key), in CSR form: base
// file f's entries are of[at[f]:at[f+1]]. Only reused files are filled.
func byFile(flat, keyAt []uint32, nFiles int, reuse []int, withTF bool) (at []int, of []uint64) {
	used := make([]bool, nFiles)
	for _, bf := range reuse {
		if bf >= 0 {
			used[bf] = true
		}
	}
	fileOf := func(e uint32) int {
		if withTF {
			return int(e >> 8)
		}
		return int(e)
	}
	at = make([]int, nFiles+1)
	for _, e := range flat {
		if f := fileOf(e); used[f] {
			at[f+1]++
		}
	}
	for f := 0; f < nFiles; f++ {
		at[f+1] += at[f]
	}
	of = make([]uint64, at[nFiles])
	fill := append([]int{}, at[:nFiles]...)
	for k := 0; k+1 < len(keyAt); k++ {
		for _, e := range flat[keyAt[k]:keyAt[k+1]] {
			f := fileOf(e)
			if !used[f] {
				continue
			}
			v := uint64(k)
			if withTF {
				v = v<<8 | uint64(e&255)
			}
			of[fill[f]] = v
			fill[f]++
		}
	}
	return at, of
}

// postings lays out per-file entries as flat per-key lists in file order,
// dropping keys no file holds any more. With withTF an entry is key<<8|tf
// and a posting file<<8|tf; without, both are bare.
func postings(keys []string, perFile [][]uint64, withTF bool) ([]string, []uint32, []uint32) {
	split := func(e uint64) (uint32, uint32) {
		if withTF {
			return uint32(e >> 8), uint32(e & 255)
		}
		return uint32(e), 0
	}
	count := make([]uint32, len(keys))
	for _, es := range perFile {
		for _, e := range es {
			k, _ := split(e)
			count[k]++
		}
	}
	remap := make([]uint32, len(keys))
	var out []string
	at := make([]uint32, 0, len(keys)+1)
	n := uint32(0)
	for k, c := range count {
		if c == 0 {
			continue
		}
		remap[k] = uint32(len(out))
		out = append(out, keys[k])
		at = append(at, n)
		n += c
	}
	at = append(at, n)
	flat := make([]uint32, n)
	fill := append([]uint32{}, at[:len(out)]...)
	for fi, es := range perFile {
		for _, e := range es {
			k, tf := split(e)
			v := uint32(fi)
			if withTF {
				v = v<<8 | tf
			}
			flat[fill[remap[k]]] = v
			fill[remap[k]]++
		}
	}
	return out, flat, at
}
