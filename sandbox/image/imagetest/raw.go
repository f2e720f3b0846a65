package imagetest

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"log"
)

// RegistryWith is Registry with wrap around its handler: a test serves
// what a hostile registry would (other bytes for a blob) or records what
// the client sent (its Authorization header).
func RegistryWith(t testing.TB, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(wrap(registry.New(registry.Logger(log.New(io.Discard, "", 0)))))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// RawLayer is a layer whose uncompressed bytes are exactly data (a tar
// stream a test assembled by hand, padded or not).
func RawLayer(t testing.TB, data []byte) v1.Layer {
	t.Helper()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Gzip compresses data, as a registry would serve a layer.
func Gzip(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// SparseTar is a tar stream of one file, name, in GNU's PAX sparse format
// 0.1: realSize bytes when expanded, of which the stream carries one.
// archive/tar cannot write sparse files, so the blocks are built by hand.
func SparseTar(name string, realSize int64) []byte {
	var recs bytes.Buffer
	for _, kv := range [][2]string{
		{"GNU.sparse.major", "0"}, {"GNU.sparse.minor", "1"}, {"GNU.sparse.name", name},
		{"GNU.sparse.size", fmt.Sprint(realSize)}, {"GNU.sparse.numblocks", "1"}, {"GNU.sparse.map", fmt.Sprintf("%d,1", realSize-1)},
	} {
		recs.WriteString(paxRecord(kv[0], kv[1]))
	}
	var out bytes.Buffer
	out.Write(ustar("PaxHeaders/"+name, 'x', int64(recs.Len())))
	out.Write(pad(recs.Bytes()))
	out.Write(ustar(name, '0', 1))
	out.Write(pad([]byte("x")))
	out.Write(make([]byte, 1024)) // end of archive
	return out.Bytes()
}

// paxRecord is "LEN key=value\n", LEN counting itself.
func paxRecord(k, v string) string {
	body := " " + k + "=" + v + "\n"
	n := len(body)
	for len(fmt.Sprint(n))+len(body) != n {
		n = len(fmt.Sprint(n)) + len(body)
	}
	return fmt.Sprint(n) + body
}

func pad(b []byte) []byte {
	if r := len(b) % 512; r != 0 {
		b = append(b, make([]byte, 512-r)...)
	}
	return b
}

// ustar is one 512-byte ustar header block.
func ustar(name string, typeflag byte, size int64) []byte {
	b := make([]byte, 512)
	copy(b[0:100], name)
	copy(b[100:108], "0000644\x00")
	copy(b[108:116], "0000000\x00")
	copy(b[116:124], "0000000\x00")
	copy(b[124:136], fmt.Sprintf("%011o\x00", size))
	copy(b[136:148], "00000000000\x00")
	b[156] = typeflag
	copy(b[257:265], "ustar\x0000")
	copy(b[148:156], "        ")
	var sum int64
	for _, c := range b {
		sum += int64(c)
	}
	copy(b[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return b
}
