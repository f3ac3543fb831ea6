package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/guregu/dynamo/v2"

	"surveyservice/shared/survey"
)

const variablesSK = "VARIABLES"

// variablesItem is SURVEY#<sid> / VARIABLES: all of a survey's variables
// (at most survey.MaxVariables), as one JSON list under a version. One item
// makes "all or nothing" for an array and "unique names" one conditional
// write, and the survey detail reads them with the rest of its collection.
//
// Responded is the set of the ids of the variables that a response has
// carried (has_response). The submission transaction ADDs to it, and only
// ids not in it yet, so that later submissions leave the item alone; the
// owner's writes set the list and the version and leave the set as it is
// (ids are never reused, so a deleted variable's id in it is harmless).
type variablesItem struct {
	PK        string  `dynamo:"PK"`
	SK        string  `dynamo:"SK"`
	AccountID int64   `dynamo:"account_id"`
	Doc       string  `dynamo:"doc"`
	Version   int64   `dynamo:"version"`
	Responded []int64 `dynamo:"responded,set"`
	// PutToken is the token of the write that made this version (see
	// puttoken.go).
	PutToken string `dynamo:"put_token,omitempty"`
}

func decodeVariables(item dynamo.Item) ([]survey.Variable, int64, error) {
	var it variablesItem
	if err := dynamo.UnmarshalItem(item, &it); err != nil {
		return nil, 0, fmt.Errorf("store: decode variables: %w", err)
	}
	if it.Doc == "" {
		return []survey.Variable{}, it.Version, nil
	}
	var vars []survey.Variable
	if err := json.Unmarshal([]byte(it.Doc), &vars); err != nil {
		return nil, 0, fmt.Errorf("store: decode variables of %s: %w", it.PK, err)
	}
	for i := range vars {
		vars[i].HasResponse = slices.Contains(it.Responded, vars[i].ID)
	}
	return vars, it.Version, nil
}

// SurveyVariables reads a survey of the account and its variables in one
// strongly consistent BatchGetItem.
func (s *Store) SurveyVariables(ctx context.Context, aid, sid int64) (survey.Survey, []survey.Variable, int64, error) {
	return surveyWithList(ctx, s, aid, sid, companion{SurveyPK(sid), variablesSK, "variables"}, decodeVariables)
}

// errVariablesChanged answers a write of variables that lost every race
// for ownerRetryFor: the client may simply retry.
var errVariablesChanged = survey.Errorf(survey.EUNAVAILABLE, "The survey's variables are being changed by another request; try again shortly.")

// errVariablesRace is a write of variables that lost a race: another
// write changed them since they were read (the version), or held the
// survey's items (TransactionConflict). The write reads them again.
var errVariablesRace = errors.New("store: variables changed meanwhile")

// writeVariables replaces a survey's variables under the version read,
// with the survey's liveness checked in the same transaction. A retried
// transaction that had landed finds its own put token and succeeds (see
// puttoken.go).
func (s *Store) writeVariables(ctx context.Context, aid, sid int64, vars []survey.Variable, version int64) error {
	vars = slices.Clone(vars)
	for i := range vars {
		vars[i].HasResponse = false // kept by the item's responded set, not in the list
	}
	doc, err := json.Marshal(vars)
	if err != nil {
		return fmt.Errorf("store: encode variables: %w", err)
	}
	// An update, not a put: the responded set that submissions keep stays.
	token := newPutToken()
	up := s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, variablesSK).
		Set("account_id", aid).Set("doc", string(doc)).Set("version", version+1).Set(attrPutToken, token)
	if version == 0 {
		up = up.If("attribute_not_exists(version)")
	} else {
		up = up.If("version = ?", version)
	}
	err = s.runTx(ctx, s.mirrorState(s.db.WriteTx().
		Update(s.table.Update(AttrPK, SurveyPK(sid)).Range(AttrSK, SurveySK).Add(attrCollectionVersion, 1).If(surveyWritable, aid, false)).
		Update(up.IncludeItemInCondCheckFail(true)), sid, addCV))
	switch {
	case err == nil:
		return nil
	case txFailedAt(err, 0):
		return s.whyNotWritable(ctx, aid, sid)
	case txFailedAt(err, 1) && ownEarlierPut(txItemAt(err, 1), token):
		return nil // an earlier attempt of this very transaction landed
	case txFailedAt(err, 1) || txConflict(err):
		return errVariablesRace
	}
	return s.fail(fmt.Sprintf("write variables of survey %d", sid), err)
}

// AddVariables adds variables to a survey of the account, all or
// nothing, as many owners' scripts may at once (contract section 3,
// "Contention"): check sees the survey and its variables as they are and
// answers the variables to add (names checked against the existing ones)
// or the request's error, returned as is; a write that lost a race to
// another reads them again and checks again, until it lands or
// ownerRetryFor has passed (EUNAVAILABLE). It answers the variables
// created, with their ids.
func (s *Store) AddVariables(ctx context.Context, aid, sid int64, check func(sv survey.Survey, existing []survey.Variable) ([]survey.Variable, error)) ([]survey.Variable, error) {
	started := time.Now()
	var ids []int64 // kept across tries
	for attempt := 1; ; attempt++ {
		sv, existing, version, err := s.SurveyVariables(ctx, aid, sid)
		if err != nil {
			return nil, err
		}
		add, err := check(sv, existing)
		if err != nil || len(add) == 0 {
			return add, err
		}
		created, err := s.createVariables(ctx, aid, sid, variablesRead{existing, version}, add, &ids)
		switch {
		case errors.Is(err, errVariablesRace) && ownerAgain(ctx, attempt, started):
			continue
		case errors.Is(err, errVariablesRace):
			return nil, errVariablesChanged
		}
		return created, err
	}
}

// CreateVariables adds variables to a survey of the account, all or
// nothing: the names were checked against vars (read at version) by the
// caller, and the write lands only if nobody changed them since. It answers
// the variables created, with their ids. Variables share one item, so no
// condition can catch an id handed out twice: new ids are checked against
// the survey's existing ones, and a taken one takes a fresh batch.
func (s *Store) CreateVariables(ctx context.Context, aid, sid int64, existing []survey.Variable, version int64, add []survey.Variable) ([]survey.Variable, error) {
	created, err := s.createVariables(ctx, aid, sid, variablesRead{existing, version}, add, new([]int64))
	if errors.Is(err, errVariablesRace) {
		return nil, errVariablesChanged
	}
	return created, err
}

// variablesRead is a survey's variables as read, at their version.
type variablesRead struct {
	vars    []survey.Variable
	version int64
}

// createVariables writes the variables read (at their version) and add with new ids:
// *ids when they are as many and none is taken (those of an earlier try
// of the same request, so that a retry does not ask the counter again),
// else fresh ones, kept in *ids.
func (s *Store) createVariables(ctx context.Context, aid, sid int64, read variablesRead, add []survey.Variable, ids *[]int64) ([]survey.Variable, error) {
	existing, version := read.vars, read.version
	taken := make(map[int64]bool, len(existing))
	for _, v := range existing {
		taken[v.ID] = true
	}
	for attempt := 1; ; attempt++ {
		if len(*ids) != len(add) {
			fresh, err := s.NewIDs(ctx, KindVariable, len(add))
			if err != nil {
				return nil, err
			}
			*ids = fresh
		}
		clash := slices.IndexFunc(*ids, func(id int64) bool { return taken[id] })
		if clash < 0 {
			for i := range add {
				add[i].ID = (*ids)[i]
			}
			break
		}
		if attempt == idAttempts {
			return nil, errIDsTaken
		}
		if err := s.idTaken(ctx, KindVariable, (*ids)[len(*ids)-1]); err != nil {
			return nil, err
		}
		*ids = nil
	}
	all := append(append([]survey.Variable{}, existing...), add...)
	if err := s.writeVariables(ctx, aid, sid, all, version); err != nil {
		return nil, err
	}
	return add, nil
}

// DeleteVariable removes a variable of a survey of the account; a missing
// one answers ENOTFOUND.
// A delete that lost a race reads them again (see AddVariables).
func (s *Store) DeleteVariable(ctx context.Context, aid, sid, vid int64) error {
	started := time.Now()
	for attempt := 1; ; attempt++ {
		_, vars, version, err := s.SurveyVariables(ctx, aid, sid)
		if err != nil {
			return err
		}
		kept := make([]survey.Variable, 0, len(vars))
		for _, v := range vars {
			if v.ID != vid {
				kept = append(kept, v)
			}
		}
		if len(kept) == len(vars) {
			return survey.ErrNotFound
		}
		err = s.writeVariables(ctx, aid, sid, kept, version)
		switch {
		case errors.Is(err, errVariablesRace) && ownerAgain(ctx, attempt, started):
			continue
		case errors.Is(err, errVariablesRace):
			return errVariablesChanged
		}
		return err
	}
}
