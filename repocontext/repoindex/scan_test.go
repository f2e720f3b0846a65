package repoindex

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// defsOf renders definitions as name:kind:start-end[:parent].
func defsOf(defs []Def) string {
	var out []string
	for _, d := range defs {
		s := fmt.Sprintf("%s:%s:%d-%d", d.Name, d.Kind, d.Start, d.End)
		if d.Parent != "" {
			s += ":" + d.Parent
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestScanDefs(t *testing.T) {
	for _, c := range []struct {
		name, lang, src, want string
	}{
		{"python methods, decorators, a docstring naming a def", "python", `import os

class Cache:
    """Holds things.

def not_a_def():
    """
    @property
    def size(
        self,
    ):
        return 1

async def fetch(url):
    pass
`, "Cache:class:3-12 size:method:9-12:Cache fetch:func:14-15"},
		{"rust items, impl of a generic type, a multi-line signature", "rust", `pub(crate) struct Span {
    start: u32,
}

impl<'a, T: Clone> fmt::Display for Wrapper<'a, T> {
    fn fmt(&self) -> fmt::Result {
        Ok(())
    }
}

pub const unsafe extern "C" fn call(
    a: u32,
) -> u32
where
    T: Copy,
{
    a
}

macro_rules! ensure {
    () => {};
}
`, "Span:type:1-3 Wrapper:impl:5-9 fmt:method:6-8:Wrapper call:func:11-18 ensure:macro:20-22"},
		{"java annotations, a constructor, calls that are not methods", "java", `package a;

@Deprecated
public final class Box<T> implements Thing {
    private final T value;

    Box(T value) {
        this.value = value;
        helper(value);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <R> Map<String, List<R>> map(Function<T, R> f) throws IOException {
        return other.map(f);
    }

    void run();
}
`, "Box:class:3-19 Box:method:7-10:Box map:method:12-16:Box run:method:18-18:Box"},
		{"typescript functions, arrows, methods; calls with objects are not", "typescript", `export interface Options { a: number }
export type Handler<T> = (x: T) => void;

export async function load(path: string): Promise<void> {
  await read(path);
}
function load(path: string): void;

export const parse = (text: string): Node => {
  const roles = (text || '').split(' ').map(r => r.trim());
  build({
    roles,
  });
  return roles;
};

export class Reader extends Base {
  private async next<T>(n: number): Promise<T> {
    return this.items[n];
  }
  #close() {
  }
  constructor(
    private readonly path: string,
  ) {
    expect(
      path,
    );
  }
}
`, "Options:interface:1-1 Handler:type:2-2 load:func:4-6 parse:func:9-15 Reader:class:17-30 next:method:18-20:Reader close:method:21-22:Reader constructor:method:23-29:Reader"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := defsOf(scanDefs(c.lang, []byte(c.src))); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// The index's definitions are the scanner's, in every build.
func TestIndexTakesScannedDefinitions(t *testing.T) {
	src := "impl<T> Stack<T> {\n    fn push(&mut self) {}\n}\n"
	x, err := Build(context.Background(), gitRepo(t, map[string]string{"src/lib.rs": src}), "c")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := defsOf(x.Files[0].Defs), defsOf(scanDefs("rust", []byte(src))); got != want || got == "" {
		t.Errorf("indexed %q, scanner %q", got, want)
	}
}
