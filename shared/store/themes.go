package store

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

// attrThemes is the account item's count of its themes (under
// survey.MaxThemes, moved in the transaction of each create and delete).
const attrThemes = "themes"

// themeItem is an account's theme, ACCOUNT#<aid> / THEME#<tid>. Doc is the
// theme's fields as JSON (survey.Theme); Deleting is set while a delete
// counts the theme's surveys, so that no survey takes it meanwhile. Image,
// once set, is the background image as JSON ("null" for none) and wins
// over the doc's: the image is written by its own update (SetThemeImage),
// so that an edit of the theme racing an upload does not drop the image
// (and leave its files unowned), nor an upload undo the edit.
type themeItem struct {
	PK       string  `dynamo:"PK"`
	SK       string  `dynamo:"SK"`
	ID       int64   `dynamo:"id"`
	Doc      string  `dynamo:"doc"`
	Image    *string `dynamo:"image"`
	Deleting bool    `dynamo:"deleting,omitempty"`
}

// themeUseItem marks a survey that uses an account's theme
// (ACCOUNT#<aid> / THEMEUSE#<tid>#<sid>).
type themeUseItem struct {
	PK       string `dynamo:"PK"`
	SK       string `dynamo:"SK"`
	SurveyID int64  `dynamo:"survey_id"`
}

func (it themeItem) theme() (survey.Theme, error) {
	var t survey.Theme
	if err := json.Unmarshal([]byte(it.Doc), &t); err != nil {
		return t, fmt.Errorf("store: theme %d: %w", it.ID, err)
	}
	t.ID, t.IsPublic = it.ID, false
	if it.Image != nil {
		var bi *survey.BackgroundImage
		if err := json.Unmarshal([]byte(*it.Image), &bi); err != nil {
			return t, fmt.Errorf("store: theme %d image: %w", it.ID, err)
		}
		t.BackgroundImage, t.BackgroundImageID = bi, nil
		if bi != nil {
			t.BackgroundImageID = &bi.ID
		}
	}
	return t, nil
}

// SetThemeImage sets the background image of the account's theme (nil
// removes it) and answers the image it replaced (nil when none), whose
// files the caller deletes: one UpdateItem. Another account's theme, or
// none, answers ENOTFOUND.
func (s *Store) SetThemeImage(ctx context.Context, aid, tid int64, bi *survey.BackgroundImage) (*survey.BackgroundImage, error) {
	doc, err := json.Marshal(bi)
	if err != nil {
		return nil, fmt.Errorf("store: encode image: %w", err)
	}
	var old themeItem
	err = onTheHeldTheme(ctx, func() error {
		return s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, ThemeSK(tid)).Set("image", string(doc)).If("attribute_exists(PK)").OldValue(ctx, &old)
	})
	if dynamo.IsCondCheckFailed(err) {
		return nil, survey.ErrNotFound
	}
	if err != nil {
		return nil, s.fail(fmt.Sprintf("set image of theme %d", tid), err)
	}
	s.themes.forget(aid)
	t, err := old.theme()
	if err != nil {
		return nil, err
	}
	return t.BackgroundImage, nil
}

// themeUploadHeldFor is how long a request's claim of a background upload
// holds (ClaimThemeUpload): longer than the theme images function's time,
// so that only a request cut short leaves one for a retry to take over.
const themeUploadHeldFor = 2 * time.Minute

// ClaimThemeUpload takes upload id of theme tid for one request, on the
// theme's item (upload_<id>, its time): true for the first, false while
// another request holds it (a claim younger than themeUploadHeldFor). Two
// PUTs of one upload at once each made the theme's image of it, and one
// racing a third PUT of another upload could set the image after the
// third had deleted its files. A missing theme answers ENOTFOUND.
func (s *Store) ClaimThemeUpload(ctx context.Context, aid, tid, id int64) (bool, error) {
	now := s.Now()
	attr := "upload_" + strconv.FormatInt(id, 10)
	err := onTheHeldTheme(ctx, func() error {
		return s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, ThemeSK(tid)).Set(attr, now.UnixMilli()).
			If("attribute_exists(PK)").If("attribute_not_exists($) OR $ < ?", attr, attr, now.Add(-themeUploadHeldFor).UnixMilli()).Run(ctx)
	})
	if dynamo.IsCondCheckFailed(err) {
		if _, err := s.Theme(ctx, aid, tid); err != nil {
			return false, err
		}
		return false, nil
	}
	if err != nil {
		return false, s.fail(fmt.Sprintf("claim an upload of theme %d", tid), err)
	}
	return true, nil
}

// ReleaseThemeUpload ends a request's claim of upload id (done, or failed:
// a retry may take it at once). A theme gone meanwhile is no error.
func (s *Store) ReleaseThemeUpload(ctx context.Context, aid, tid, id int64) error {
	err := onTheHeldTheme(ctx, func() error {
		return s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, ThemeSK(tid)).Remove("upload_" + strconv.FormatInt(id, 10)).
			If("attribute_exists(PK)").Run(ctx)
	})
	if err != nil && !dynamo.IsCondCheckFailed(err) {
		return s.fail(fmt.Sprintf("release an upload of theme %d", tid), err)
	}
	return nil
}

// onTheHeldTheme runs write, a single write of a theme's item, again
// while a transaction holds that item (every survey taking the theme
// checks it, SetSurveyTheme): DynamoDB cancels the write, not queues it,
// and the owner's edit or delete is due its answer, not a 503.
func onTheHeldTheme(ctx context.Context, write func() error) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err := write()
		if err == nil || !retryOwnerConflict(ctx, err, attempt, started) {
			return err
		}
	}
}

// themeLive is the condition of a survey taking an account's theme: it
// exists and no delete is counting its surveys.
const themeLive = "attribute_exists(PK) AND (attribute_not_exists(deleting) OR deleting = ?)"

// Themes are the account's own themes in order (then id): one Query.
func (s *Store) Themes(ctx context.Context, aid int64) ([]survey.Theme, error) {
	var its []themeItem
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.BeginsWith, "THEME#").Consistent(true).All(ctx, &its)
	if err != nil {
		return nil, s.fail("list themes", err)
	}
	out := make([]survey.Theme, 0, len(its))
	for _, it := range its {
		t, err := it.theme()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Order < out[j].Order })
	return out, nil
}

// Theme is a public theme, or one of the account's; ENOTFOUND otherwise.
func (s *Store) Theme(ctx context.Context, aid, tid int64) (survey.Theme, error) {
	if t, ok := survey.PublicTheme(tid); ok {
		return t, nil
	}
	var it themeItem
	err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.Equal, ThemeSK(tid)).Consistent(true).One(ctx, &it)
	if err == dynamo.ErrNotFound {
		return survey.Theme{}, survey.ErrNotFound
	}
	if err != nil {
		return survey.Theme{}, s.fail(fmt.Sprintf("get theme %d", tid), err)
	}
	return it.theme()
}

// CreateTheme stores a new theme of the account: one transaction of the
// theme and the account's theme count, under survey.MaxThemes (400
// survey.ErrTooManyThemes beyond). Without an order the theme goes last.
func (s *Store) CreateTheme(ctx context.Context, aid int64, t survey.Theme, hasOrder bool) (survey.Theme, error) {
	if !hasOrder {
		own, err := s.Themes(ctx, aid)
		if err != nil {
			return t, err
		}
		t.Order = 1
		for _, o := range own {
			t.Order = max(t.Order, o.Order+1)
		}
	}
	n, err := s.NewID(ctx, KindTheme)
	if err != nil {
		return t, err
	}
	t.ID, t.IsPublic = n+survey.PublicThemeMaxID, false
	doc, err := json.Marshal(t)
	if err != nil {
		return t, fmt.Errorf("store: encode theme: %w", err)
	}
	it := themeItem{PK: AccountPK(aid), SK: ThemeSK(t.ID), ID: t.ID, Doc: string(doc)}
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err = s.db.WriteTx().
			Put(s.table.Put(it).If("attribute_not_exists(PK)")).
			Update(s.countUp(aid, attrThemes, survey.MaxThemes)).
			Run(ctx)
		switch {
		case err == nil:
			return t, nil
		case txFailedAt(err, 1):
			if txItemAt(err, 1) == nil {
				return t, survey.ErrNotFound
			}
			return t, survey.ErrTooManyThemes
		case retryConflict(ctx, err, attempt, started):
			continue
		}
		return t, s.fail("create theme", err)
	}
}

// UpdateTheme replaces the fields of the account's theme with t's (the
// handler merged the change into the stored theme). Public themes are
// not the store's; another account's answers ENOTFOUND.
func (s *Store) UpdateTheme(ctx context.Context, aid int64, t survey.Theme) error {
	t.IsPublic = false
	doc, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("store: encode theme: %w", err)
	}
	err = onTheHeldTheme(ctx, func() error {
		return s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, ThemeSK(t.ID)).Set("doc", string(doc)).If("attribute_exists(PK)").Run(ctx)
	})
	if dynamo.IsCondCheckFailed(err) {
		return survey.ErrNotFound
	}
	if err != nil {
		return s.fail(fmt.Sprintf("update theme %d", t.ID), err)
	}
	s.themes.forget(aid)
	return nil
}

// DeleteTheme deletes the account's theme unless a survey uses it (409
// survey.ThemeInUse, the trash's counted). It marks the theme deleting
// first, so that a survey taking it concurrently either is counted or is
// refused (themeLive), then counts the markers (one Query) and deletes the
// theme with the account's count, or clears the mark.
func (s *Store) DeleteTheme(ctx context.Context, aid, tid int64) error {
	err := onTheHeldTheme(ctx, func() error {
		return s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, ThemeSK(tid)).Set("deleting", true).If("attribute_exists(PK)").Run(ctx)
	})
	if dynamo.IsCondCheckFailed(err) {
		return survey.ErrNotFound
	}
	if err != nil {
		return s.fail(fmt.Sprintf("mark theme %d", tid), err)
	}
	unmark := func(ctx context.Context) error {
		return onTheHeldTheme(ctx, func() error {
			return s.table.Update(AttrPK, AccountPK(aid)).Range(AttrSK, ThemeSK(tid)).Remove("deleting").If("attribute_exists(PK)").Run(ctx)
		})
	}
	// A delete that fails after its mark clears it (best effort, past
	// the request's cancellation): a mark left behind would refuse the
	// theme to every survey (themeLive) until the owner's next DELETE.
	failed := func(what string, err error) error {
		if uerr := unmark(context.WithoutCancel(ctx)); uerr != nil && !dynamo.IsCondCheckFailed(uerr) {
			slog.WarnContext(ctx, "a theme's delete mark not cleared", "theme", tid, "error", uerr.Error())
		}
		return s.fail(fmt.Sprintf("%s theme %d", what, tid), err)
	}
	used, err := s.table.Get(AttrPK, AccountPK(aid)).Range(AttrSK, dynamo.BeginsWith, ThemeUsePrefix(tid)).Consistent(true).Count(ctx)
	if err != nil {
		return failed("count surveys of", err)
	}
	if used > 0 {
		if err := unmark(ctx); err != nil && !dynamo.IsCondCheckFailed(err) {
			return s.fail(fmt.Sprintf("unmark theme %d", tid), err)
		}
		return survey.ThemeInUse(used)
	}
	started := time.Now()
	for attempt := 1; ; attempt++ {
		err = s.db.WriteTx().
			Delete(s.table.Delete(AttrPK, AccountPK(aid)).Range(AttrSK, ThemeSK(tid))).
			Update(s.countAdd(aid, attrThemes, -1)).Run(ctx)
		switch {
		case err == nil:
			s.themes.forget(aid)
			return nil
		case retryConflict(ctx, err, attempt, started):
			continue
		}
		return failed("delete", err)
	}
}

// SetSurveyTheme makes the survey of the account use the theme (a public
// one or the account's; 400 on theme_id otherwise). A survey in the trash
// answers 409, another account's 404.
func (s *Store) SetSurveyTheme(ctx context.Context, aid, sid, tid int64) error {
	bad := survey.FieldError("theme_id", survey.InvalidPK(tid))
	to, err := s.Theme(ctx, aid, tid)
	if err == survey.ErrNotFound {
		return bad
	}
	if err != nil {
		return err
	}
	sv, err := s.Survey(ctx, aid, sid)
	if err != nil {
		return err
	}
	if sv.Deleted {
		return survey.ErrSurveyDeleted
	}
	doc, err := json.Marshal(to)
	if err != nil {
		return fmt.Errorf("store: encode theme: %w", err)
	}
	started := time.Now()
	for attempt := 1; ; attempt++ {
		tx := s.db.WriteTx()
		// The theme moves the collection version, on the item and on the
		// read copies of its state: the public routes take it from the
		// container's copy of the survey while the copies name its version.
		tx.Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).If(surveyWritable, aid, false).
			Set("theme", string(doc)).Add(attrCollectionVersion, 1))
		if !to.IsPublic {
			tx.Check(s.table.Check(AttrPK, AccountPK(aid)).Range(AttrSK, ThemeSK(tid)).If(themeLive, false))
			tx.Put(s.table.Put(themeUseItem{PK: AccountPK(aid), SK: ThemeUseSK(tid, sid), SurveyID: sid}))
		}
		if old := sv.Theme.ID; !survey.IsPublicThemeID(old) && old != tid {
			tx.Delete(s.table.Delete(AttrPK, AccountPK(aid)).Range(AttrSK, ThemeUseSK(old, sid)))
		}
		err = s.mirrorState(tx, sid, addCV).Run(ctx)
		switch {
		case err == nil:
			return nil
		case txFailedAt(err, 0):
			return s.whyNotWritable(ctx, aid, sid)
		case txFailedAt(err, 1):
			return bad
		case retryOwnerConflict(ctx, err, attempt, started):
			continue
		}
		return s.fail(fmt.Sprintf("set theme of survey %d", sid), err)
	}
}

// themeUse is the marker a survey written with the theme needs (a copy, a
// survey started from a template), or nil for a public theme.
func themeUse(aid, sid int64, t survey.Theme) *themeUseItem {
	if survey.IsPublicThemeID(t.ID) {
		return nil
	}
	return &themeUseItem{PK: AccountPK(aid), SK: ThemeUseSK(t.ID, sid), SurveyID: sid}
}

// themeCacheFor is how long the public side (hosted pages, the public
// survey) uses an account's themes before reading them again: contract
// section 22 lets an edit show there within 60 seconds.
const themeCacheFor = 30 * time.Second

// themeCache holds accounts' themes for the public side.
type themeCache struct {
	mu  sync.Mutex
	by  map[int64]cachedThemes
	now func() time.Time
}

type cachedThemes struct {
	at     time.Time
	themes map[int64]survey.Theme
}

func (c *themeCache) get(aid int64, now time.Time) (map[int64]survey.Theme, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.by[aid]
	if !ok || now.Sub(e.at) >= themeCacheFor || now.Before(e.at) {
		return nil, false
	}
	return e.themes, true
}

func (c *themeCache) put(aid int64, now time.Time, m map[int64]survey.Theme) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.by == nil || len(c.by) > 1000 {
		c.by = map[int64]cachedThemes{}
	}
	c.by[aid] = cachedThemes{at: now, themes: m}
}

func (c *themeCache) forget(aid int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.by, aid)
}

// resolveThemes gives each survey its theme's current fields (contract
// section 22: a survey refers to its theme): a public theme's from the
// code, an account's from one Query of the account's themes, made only
// when a survey uses one (cached for themeCacheFor when cached is set: the
// public side). A theme gone meanwhile leaves the survey's snapshot. Paths
// are made absolute under MediaURL.
func (s *Store) resolveThemes(ctx context.Context, svs []*survey.Survey, cached bool) error {
	var own map[int64]survey.Theme
	for _, sv := range svs {
		if t, ok := survey.PublicTheme(sv.Theme.ID); ok {
			sv.Theme = t.WithMedia(s.MediaURL)
			continue
		}
		if own == nil {
			m, err := s.accountThemes(ctx, sv.AccountID, cached)
			if err != nil {
				return err
			}
			own = m
		}
		if t, ok := own[sv.Theme.ID]; ok {
			sv.Theme = t
		}
		sv.Theme = sv.Theme.WithMedia(s.MediaURL)
	}
	return nil
}

func (s *Store) accountThemes(ctx context.Context, aid int64, cached bool) (map[int64]survey.Theme, error) {
	now := s.Now()
	if cached {
		if m, ok := s.themes.get(aid, now); ok {
			return m, nil
		}
	}
	list, err := s.Themes(ctx, aid)
	if err != nil {
		return nil, err
	}
	m := make(map[int64]survey.Theme, len(list))
	for _, t := range list {
		m[t.ID] = t
	}
	if cached {
		s.themes.put(aid, now, m)
	}
	return m, nil
}
