// Checks generated Go encoders against rowkey's test vectors: the same checks
// as tests/gen/harness.py (see there). Built by tests/gen/run.sh in one
// package with every design's generated file, the runtime, and a registry.go
// that names each design's codec and record type (the `designs` map).
//
// Go records cannot leave a field out: a vector whose record lacks a field
// and that the library refuses is encoded (to keep a salt's draws in step)
// but not compared. Go strings hold any bytes, so a str field that is not
// UTF-8 decodes as the library decodes it.
//
// usage: harness MANIFEST (lines "<design> <vectors file>")
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

type design struct {
	newCodec func(seed uint64) interface{}
	rec      reflect.Type
	schema   string
	format   int
	buckets  int
}

type header struct {
	Format  int
	Schema  string
	Seed    uint64
	Buckets int
	Fields  []struct {
		Name    string
		Type    string
		Decodes bool
	}
	Order []string
}

var failures int

type checker struct {
	name    string
	d       design
	hdr     header
	types   map[string]string
	decodes map[string]bool
	codec   reflect.Value
	bad     int
}

func (c *checker) fail(line int, format string, args ...interface{}) {
	failures++
	c.bad++
	if failures <= 200 {
		fmt.Printf("FAIL %s line %d: %s\n", c.name, line, fmt.Sprintf(format, args...))
	}
}

func kind(err error) string {
	switch {
	case errors.Is(err, ErrInvalid):
		return "invalid"
	case errors.Is(err, ErrTooLong):
		return "toolong"
	case errors.Is(err, ErrCorrupt):
		return "corrupt"
	}
	return "unknown"
}

// value turns a vector's JSON value into the Go field's value.
func value(raw json.RawMessage, t string, ft reflect.Type) (reflect.Value, error) {
	v := reflect.New(ft).Elem()
	var s string
	switch t {
	case "u64", "i64", "bytes":
		if err := json.Unmarshal(raw, &s); err != nil {
			return v, err
		}
	case "str":
		if raw[0] == '{' {
			var h struct{ Hex string }
			if err := json.Unmarshal(raw, &h); err != nil {
				return v, err
			}
			b, err := hex.DecodeString(h.Hex)
			v.SetString(string(b))
			return v, err
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return v, err
		}
		v.SetString(s)
		return v, nil
	case "f64":
		if raw[0] == '"' {
			_ = json.Unmarshal(raw, &s)
			v.SetFloat(map[string]float64{"inf": math.Inf(1), "-inf": math.Inf(-1), "nan": math.NaN()}[s])
			return v, nil
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		v.SetFloat(f)
		return v, err
	default:
		s = string(raw)
	}
	switch t {
	case "bytes":
		b, err := hex.DecodeString(s)
		v.SetBytes(b)
		return v, err
	case "u8", "u16", "u32", "u64":
		u, err := strconv.ParseUint(s, 10, 64)
		v.SetUint(u)
		return v, err
	}
	i, err := strconv.ParseInt(s, 10, 64)
	v.SetInt(i)
	return v, err
}

// record builds the design's record from a vector's fields; it also
// returns the names of the fields given, in schema order.
func (c *checker) record(fields map[string]json.RawMessage) (reflect.Value, []string, error) {
	r := reflect.New(c.d.rec).Elem()
	var names []string
	for i := 0; i < r.NumField(); i++ {
		tag := c.d.rec.Field(i).Tag.Get("rowkey")
		raw, ok := fields[tag]
		if !ok {
			continue
		}
		v, err := value(raw, c.types[tag], r.Field(i).Type())
		if err != nil {
			return r, nil, fmt.Errorf("field %s: %v", tag, err)
		}
		r.Field(i).Set(v)
		names = append(names, tag)
	}
	return r, names, nil
}

func same(a, b reflect.Value) bool {
	if a.Kind() == reflect.Float64 {
		x, y := a.Float(), b.Float()
		return math.Float64bits(x) == math.Float64bits(y) || (math.IsNaN(x) && math.IsNaN(y))
	}
	if a.Kind() == reflect.Slice {
		return bytes.Equal(a.Bytes(), b.Bytes())
	}
	return a.Interface() == b.Interface()
}

// expect compares a decoded record with the fields it must hold (zero elsewhere).
func (c *checker) expect(line int, got reflect.Value, want map[string]json.RawMessage) {
	wantRec, _, err := c.record(want)
	if err != nil {
		c.fail(line, "bad vector: %v", err)
		return
	}
	for i := 0; i < got.NumField(); i++ {
		if !same(got.Field(i), wantRec.Field(i)) {
			c.fail(line, "field %s: expected %v, got %v", c.d.rec.Field(i).Tag.Get("rowkey"), wantRec.Field(i), got.Field(i))
		}
	}
}

func (c *checker) call(method string, args ...reflect.Value) []reflect.Value {
	return c.codec.MethodByName(method).Call(args)
}

func errOf(v reflect.Value) error {
	if v.IsNil() {
		return nil
	}
	return v.Interface().(error)
}

func rangesText(rs []KeyRange) string {
	var parts []string
	for _, r := range rs {
		stop := "null"
		if r.Stop != nil {
			stop = hex.EncodeToString(r.Stop)
		}
		parts = append(parts, fmt.Sprintf("%x %s %d", r.Start, stop, r.Bucket))
	}
	return strings.Join(parts, ", ")
}

type orderedKey struct {
	tuple []interface{}
	key   []byte
	line  int
}

func cmpOrdered[T uint64 | int64](x, y T) int {
	if x < y {
		return -1
	}
	if x > y {
		return 1
	}
	return 0
}

func cmpTuple(a, b []interface{}) int {
	for i := range a {
		d := 0
		switch x := a[i].(type) {
		case uint64:
			d = cmpOrdered(x, b[i].(uint64))
		case int64:
			d = cmpOrdered(x, b[i].(int64))
		case []byte:
			d = bytes.Compare(x, b[i].([]byte))
		}
		if d != 0 {
			return d
		}
	}
	return 0
}

func (c *checker) tuple(r reflect.Value) []interface{} {
	var out []interface{}
	for _, name := range c.hdr.Order {
		for i := 0; i < r.NumField(); i++ {
			if c.d.rec.Field(i).Tag.Get("rowkey") != name {
				continue
			}
			f := r.Field(i)
			switch f.Kind() {
			case reflect.Float64:
				b := math.Float64bits(f.Float())
				if math.IsNaN(f.Float()) {
					b = 0x7ff8000000000000
				}
				if b>>63 != 0 {
					b = ^b
				} else {
					b ^= 1 << 63
				}
				out = append(out, b)
			case reflect.String:
				out = append(out, []byte(f.String()))
			case reflect.Slice:
				out = append(out, f.Bytes())
			case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				out = append(out, f.Int())
			default:
				out = append(out, f.Uint())
			}
		}
	}
	return out
}

func (c *checker) line(n int, text string) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		c.fail(n, "bad JSON: %v", err)
		return
	}
	var wantErr, wantKey string
	_ = json.Unmarshal(v["error"], &wantErr)
	_ = json.Unmarshal(v["key"], &wantKey)
	switch {
	case v["encode"] != nil:
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(v["encode"], &fields)
		rec, given, err := c.record(fields)
		if err != nil {
			c.fail(n, "bad vector: %v", err)
			return
		}
		out := c.call("Encode", rec)
		key, err := out[0].Bytes(), errOf(out[1])
		if len(given) < len(c.hdr.Fields) && wantErr != "" {
			return // a record without a field: Go cannot say so
		}
		if err != nil {
			if wantErr == "" {
				c.fail(n, "encode refused (%v), expected key %s", err, wantKey)
			} else if kind(err) != wantErr {
				c.fail(n, "encode: error %v, expected %s", err, wantErr)
			}
			return
		}
		if wantErr != "" {
			c.fail(n, "encode gave %x, expected error %s", key, wantErr)
			return
		}
		if hex.EncodeToString(key) != wantKey {
			c.fail(n, "encode gave %x, expected %s", key, wantKey)
			return
		}
		if raw := v["bucket"]; raw != nil {
			want, _ := strconv.Atoi(string(raw))
			if out := c.call("BucketOf", reflect.ValueOf(key)); out[0].Int() != int64(want) || errOf(out[1]) != nil {
				c.fail(n, "BucketOf gave %d (%v), expected %d", out[0].Int(), errOf(out[1]), want)
			}
		}
		back := c.call("Decode", reflect.ValueOf(key))
		if err := errOf(back[1]); err != nil {
			c.fail(n, "decode of its own key refused: %v", err)
			return
		}
		decoded := map[string]json.RawMessage{}
		for name, raw := range fields {
			if c.decodes[name] {
				decoded[name] = raw
			}
		}
		c.expect(n, back[0], decoded)
		if c.hdr.Order != nil {
			orderedKeys = append(orderedKeys, orderedKey{c.tuple(rec), key, n})
		}
	case v["decode"] != nil:
		var khex string
		_ = json.Unmarshal(v["decode"], &khex)
		key, _ := hex.DecodeString(khex)
		back := c.call("Decode", reflect.ValueOf(key))
		err := errOf(back[1])
		if err != nil {
			if kind(err) != "corrupt" || wantErr == "" {
				c.fail(n, "decode refused (%v), expected %s", err, v["fields"])
			}
			return
		}
		if wantErr != "" {
			c.fail(n, "decode accepted a key the library refuses (%s)", v["message"])
			return
		}
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(v["fields"], &fields)
		c.expect(n, back[0], fields)
	default:
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(v["prefix"], &fields)
		rec, given, err := c.record(fields)
		if err != nil {
			c.fail(n, "bad vector: %v", err)
			return
		}
		args := []reflect.Value{rec}
		for _, g := range given {
			args = append(args, reflect.ValueOf(g))
		}
		out := c.call("PrefixRanges", args...)
		got, err := out[0].Interface().([]KeyRange), errOf(out[1])
		if err != nil {
			if kind(err) != wantErr {
				c.fail(n, "PrefixRanges refused (%v), expected %s", err, text)
			}
			return
		}
		var want []struct {
			Start  string
			Stop   *string
			Bucket int
		}
		_ = json.Unmarshal(v["ranges"], &want)
		if wantErr != "" || len(want) != len(got) {
			c.fail(n, "PrefixRanges gave %s, expected %s", rangesText(got), text)
			return
		}
		for i, w := range want {
			stop := "null"
			if w.Stop != nil {
				stop = *w.Stop
			}
			g := rangesText(got[i : i+1])
			if g != fmt.Sprintf("%s %s %d", w.Start, stop, w.Bucket) {
				c.fail(n, "PrefixRanges range %d gave %s, expected %s %s %d", i, g, w.Start, stop, w.Bucket)
			}
			if len(given) == 0 && w.Bucket >= 0 {
				out := c.call("BucketRange", reflect.ValueOf(w.Bucket))
				if br := out[0].Interface().(KeyRange); rangesText([]KeyRange{br}) != g || errOf(out[1]) != nil {
					c.fail(n, "BucketRange(%d) gave %s", w.Bucket, rangesText([]KeyRange{br}))
				}
			}
		}
	}
}

var orderedKeys []orderedKey

func check(name, path string) int {
	d, ok := designs[name]
	if !ok {
		fmt.Printf("FAIL %s: not in the registry\n", name)
		failures++
		return 0
	}
	f, err := os.Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	c := &checker{name: name, d: d, types: map[string]string{}, decodes: map[string]bool{}}
	sc.Scan()
	if err := json.Unmarshal(sc.Bytes(), &c.hdr); err != nil {
		panic(err)
	}
	for _, fl := range c.hdr.Fields {
		c.types[fl.Name] = fl.Type
		c.decodes[fl.Name] = fl.Decodes
	}
	if d.schema != c.hdr.Schema || d.format != c.hdr.Format || d.buckets != c.hdr.Buckets {
		c.fail(1, "embedded schema %q, format %d, buckets %d differ from the vectors'", d.schema, d.format, d.buckets)
	}
	c.codec = reflect.ValueOf(d.newCodec(c.hdr.Seed))
	orderedKeys = nil
	n, count := 1, 0
	for sc.Scan() {
		n++
		count++
		if c.bad < 20 {
			c.line(n, sc.Text())
		}
	}
	sort.SliceStable(orderedKeys, func(i, j int) bool { return cmpTuple(orderedKeys[i].tuple, orderedKeys[j].tuple) < 0 })
	for i := 1; i < len(orderedKeys); i++ {
		a, b := orderedKeys[i-1], orderedKeys[i]
		t := cmpTuple(a.tuple, b.tuple)
		if (t < 0 && bytes.Compare(a.key, b.key) >= 0) || (t == 0 && !bytes.Equal(a.key, b.key)) {
			c.fail(b.line, "order: the record of line %d sorts before this one, its key does not", a.line)
		}
	}
	return count
}

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	sc := bufio.NewScanner(f)
	nd, nv := 0, 0
	for sc.Scan() {
		parts := strings.Fields(sc.Text())
		nv += check(parts[0], parts[1])
		nd++
	}
	fmt.Printf("go: %d designs, %d vectors, %d failures\n", nd, nv, failures)
	if failures > 0 {
		os.Exit(1)
	}
}
