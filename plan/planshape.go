package plan

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// checkShape compares a plan as generic JSON with the Go types it will decode into, which is
// what encoding/json cannot do: every key must name a field exactly (encoding/json matches
// names regardless of case), and every field Write always writes (no omitempty) must be
// there. A hand-edited plan that lost a key therefore fails naming the key, instead of
// reading as zero.
func checkShape(tree any) error {
	var ps problems
	shapeOf(&ps, tree, reflect.TypeFor[Plan](), nil)
	return ps.err()
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// place is where in the plan a value is, made into words ("pairs[0] (p1).host") only for a
// problem: a plan of a thousand pairs has tens of thousands of values, nearly all fine.
type place struct {
	up    *place
	key   string // a field's key; "" for an array's element
	index int
	id    string // an element's "id", where it has one
}

func (p *place) String() string {
	if p == nil {
		return ""
	}
	up := p.up.String()
	switch {
	case p.key != "":
		return join(up, p.key)
	case p.id != "":
		return fmt.Sprintf("%s[%d] (%s)", up, p.index, p.id)
	}
	return fmt.Sprintf("%s[%d]", up, p.index)
}

// structField is a field as JSON names it.
type structField struct {
	name      string
	omitempty bool
	typ       reflect.Type
}

// structFields are t's JSON fields, looked up once per type.
var structFields sync.Map // reflect.Type -> []structField

func fieldsOf(t reflect.Type) []structField {
	if f, ok := structFields.Load(t); ok {
		return f.([]structField)
	}
	var fields []structField
	for i := range t.NumField() {
		f := t.Field(i)
		if name, omitempty, ok := jsonName(f); ok {
			fields = append(fields, structField{name, omitempty, f.Type})
		}
	}
	structFields.Store(t, fields)
	return fields
}

func shapeOf(ps *problems, v any, t reflect.Type, at *place) {
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
		fields := fieldsOf(t)
		for _, f := range fields {
			fv, present := obj[f.name]
			switch {
			case present:
				shapeOf(ps, fv, f.typ, &place{up: at, key: f.name})
			case !f.omitempty:
				ps.addf(at.String(), "no %q", f.name)
			}
		}
		if !everyKnown(obj, fields) {
			for key := range obj {
				if !slices.ContainsFunc(fields, func(f structField) bool { return f.name == key }) {
					ps.addf(at.String(), "unknown field %q", key)
				}
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return
		}
		for i, e := range arr {
			here := &place{up: at, index: i}
			if obj, ok := e.(map[string]any); ok {
				here.id, _ = obj["id"].(string)
			}
			shapeOf(ps, e, t.Elem(), here)
		}
	}
}

// everyKnown: every key of obj names one of fields (counted: the keys present that are
// fields are as many as the keys).
func everyKnown(obj map[string]any, fields []structField) bool {
	n := 0
	for _, f := range fields {
		if _, ok := obj[f.name]; ok {
			n++
		}
	}
	return n == len(obj)
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
