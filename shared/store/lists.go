package store

// itemList is one of a survey's lists of strings kept by the codes'
// machinery (codes.go, codewrites.go, codepages.go): its own partition of
// items, count shards and page index, so that every list gets exact counts
// under racing uploads and pages without an offset from the same code.
type itemList struct {
	name   string             // in error messages: "codes", "phone numbers"
	pk     func(int64) string // the list's partition of a survey
	prefix string             // SK prefix of an item
	end    string             // above every item's SK, below the partition's other items
	// legacyCount: the settings item may hold part of the count (codes
	// counted there before the shards).
	legacyCount bool
}

func (l itemList) sk(item string) string { return l.prefix + item }

var (
	// codeList is a survey's authentication codes (section 7).
	codeList = itemList{name: "codes", pk: CodesPK, prefix: codePrefix, end: codeEnd, legacyCount: true}
	// phoneList is a survey's allowed phone numbers, in E.164 (section 18).
	phoneList = itemList{name: "phone numbers", pk: PhonesPK, prefix: phonePrefix, end: "PHONE$"}
)
