package outcome

// Guidance is one `/warden steer` note that reached an attempt: who wrote
// it and the start of its text (the record sits in a comment marker that
// must stay well inside GitHub's comment limit).
type Guidance struct {
	Author string `json:"author"`
	Text   string `json:"text"`
	Stage  string `json:"stage,omitempty"` // the step it reached the run at
}

// maxGuidanceText bounds one note's text in a record, in bytes.
const maxGuidanceText = 280

// Brief is g with its text cut to fit a record.
func (g Guidance) Brief() Guidance {
	if len(g.Text) <= maxGuidanceText {
		return g
	}
	cut := maxGuidanceText
	for cut > 0 && g.Text[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	g.Text = g.Text[:cut] + "…"
	return g
}
