package cachepkg

import (
	"context"
	"errors"
)

// Local is implemented by caches that can tell whether a key is held in
// this process's memory, where reading it costs no I/O. chromafs uses it
// to decide whether a search is worth a query (reading a page from a
// shared cache is cheaper than from Chroma, but not free).
type Local interface {
	HasLocal(key string) bool
}

// HasLocal implements Local: a Memory cache is all local.
func (m *Memory) HasLocal(key string) bool {
	_, ok := m.c.GetEntryQuietly(key)
	return ok
}

// LocalEmptier is implemented by Local caches that can tell, without
// looking at any key, that this process's memory holds no entry: a search
// in a new session then knows every page is uncached without a lookup a
// page.
type LocalEmptier interface {
	LocalEmpty() bool
}

// LocalEmpty implements LocalEmptier.
func (m *Memory) LocalEmpty() bool { return m.c.EstimatedSize() == 0 }

// SharedHas is implemented by caches with a tier that other processes
// share, such as Redis, that can tell in a few round trips which of many
// keys that tier holds. chromafs's coarse filter (FS.Candidates) does not
// ask the store which of those pages may match: reading them from the
// shared tier costs less than the store's pass over the collection.
type SharedHas interface {
	// HasShared reports, for each of keys, whether the shared tier holds
	// it: has[i] for keys[i] (len(has) == len(keys)), without counting as
	// a use. A key it could not ask about (its server is down) is
	// reported absent, with the error; a key may be evicted at any time
	// after it was reported held, so a reader must still treat a miss as
	// a miss.
	HasShared(ctx context.Context, keys []string) (has []bool, err error)
}

// Tiered is a two-tier cache: a fast local Front (typically Memory) in
// front of a shared Back (typically Redis). Reads try Front, then Back,
// and copy what Back has into Front; writes go to both. An error from
// Back is returned (after Front did its part), so that callers can log it;
// Front's answers are never lost to it.
type Tiered struct {
	Front Cache
	Back  Cache
}

var _ interface {
	Cache
	Local
	SharedHas
} = (*Tiered)(nil)

// NewTiered returns front in front of back.
func NewTiered(front, back Cache) *Tiered { return &Tiered{Front: front, Back: back} }

// Get implements Cache.
func (t *Tiered) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if v, ok, err := t.Front.Get(ctx, key); err == nil && ok {
		return v, true, nil
	}
	v, ok, err := t.Back.Get(ctx, key)
	if err != nil || !ok {
		return nil, false, err
	}
	_ = t.Front.Put(ctx, key, v)
	return v, true, nil
}

// Put implements Cache.
func (t *Tiered) Put(ctx context.Context, key string, value []byte) error {
	return errors.Join(t.Front.Put(ctx, key, value), t.Back.Put(ctx, key, value))
}

// Has implements Cache.
func (t *Tiered) Has(ctx context.Context, key string) (bool, error) {
	if ok, err := t.Front.Has(ctx, key); err == nil && ok {
		return true, nil
	}
	return t.Back.Has(ctx, key)
}

// HasLocal implements Local: whether Front holds key in memory.
func (t *Tiered) HasLocal(key string) bool {
	if l, ok := t.Front.(Local); ok {
		return l.HasLocal(key)
	}
	return false
}

// LocalEmpty implements LocalEmptier: whether Front is known to be empty.
func (t *Tiered) LocalEmpty() bool {
	e, ok := t.Front.(LocalEmptier)
	return ok && e.LocalEmpty()
}

// HasShared implements SharedHas: what Back holds, when Back implements
// SharedHas; else every key is reported absent (Back is not known to be
// shared, nor cheap to ask key by key).
func (t *Tiered) HasShared(ctx context.Context, keys []string) ([]bool, error) {
	if b, ok := t.Back.(SharedHas); ok {
		return b.HasShared(ctx, keys)
	}
	return make([]bool, len(keys)), nil
}

// GetMany implements Cache: Front first, then Back for the rest.
func (t *Tiered) GetMany(ctx context.Context, keys []string) (map[string][]byte, error) {
	out, err := t.Front.GetMany(ctx, keys)
	if err != nil || out == nil {
		out = map[string][]byte{}
	}
	var rest []string
	for _, k := range keys {
		if _, ok := out[k]; !ok {
			rest = append(rest, k)
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	got, err := t.Back.GetMany(ctx, rest)
	if len(got) > 0 {
		_ = t.Front.PutMany(ctx, got)
		for k, v := range got {
			out[k] = v
		}
	}
	return out, err
}

// PutMany implements Cache.
func (t *Tiered) PutMany(ctx context.Context, values map[string][]byte) error {
	return errors.Join(t.Front.PutMany(ctx, values), t.Back.PutMany(ctx, values))
}

// Clear implements Cache.
func (t *Tiered) Clear(ctx context.Context) error {
	return errors.Join(t.Front.Clear(ctx), t.Back.Clear(ctx))
}
