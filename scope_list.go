package engram

// listScope validates a listing's or an export's filter and compiles it;
// nil for none.
func (m *Memory) listScope(f *Filter) (*scope, error) {
	if f == nil {
		return nil, nil
	}
	if err := f.validate("Filter", m.cfg.Limits); err != nil {
		return nil, err
	}
	sc := newScope(f.clone(), m.dialect())
	return &sc, nil
}
