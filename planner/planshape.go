package planner

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// checkShape compares a plan as generic JSON with the Go types it will decode into, which is
// what encoding/json cannot do: every key must name a field exactly (encoding/json matches
// names regardless of case), and every field Write always writes (no omitempty) must be
// there. A hand-edited plan that lost a key therefore fails naming the key, instead of
// reading as zero.
func checkShape(tree any) error {
	var ps problems
	shapeOf(&ps, tree, reflect.TypeFor[Plan](), "")
	return ps.err()
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func shapeOf(ps *problems, v any, t reflect.Type, where string) {
	if v == nil {
		return // null: a nil pointer, slice or zero value; Validate judges it
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return // time.Time and the like parse themselves
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return // a type mismatch: the decoder reports it with the field's name
		}
		known := map[string]bool{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, omitempty, ok := jsonName(f)
			if !ok {
				continue
			}
			known[name] = true
			fv, present := obj[name]
			switch {
			case present:
				shapeOf(ps, fv, f.Type, join(where, name))
			case !omitempty:
				ps.addf(where, "no %q", name)
			}
		}
		for key := range obj {
			if !known[key] {
				ps.addf(where, "unknown field %q", key)
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return
		}
		for i, e := range arr {
			at := fmt.Sprintf("%s[%d]", where, i)
			if obj, ok := e.(map[string]any); ok {
				if id, ok := obj["id"].(string); ok && id != "" {
					at += " (" + id + ")"
				}
			}
			shapeOf(ps, e, t.Elem(), at)
		}
	}
}

// jsonName is the key encoding/json uses for a struct field, and whether it is omitted when
// empty; ok is false for fields JSON leaves out.
func jsonName(f reflect.StructField) (name string, omitempty, ok bool) {
	if !f.IsExported() {
		return "", false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	for opt := range strings.SplitSeq(opts, ",") {
		if opt == "omitempty" || opt == "omitzero" {
			omitempty = true
		}
	}
	return name, omitempty, true
}

// join extends a location in the plan ("pairs[0] (p1)") with a key.
func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}
