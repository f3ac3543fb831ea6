package links

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"

	"surveyservice/shared/datakey"
)

// EncryptionContext is bound to every data key: KMS refuses to unwrap a
// key under another context, and IAM allows only this one.
var EncryptionContext = map[string]string{"purpose": "survey-links"}

// Rotation is how long a data key stays current.
const Rotation = 24 * time.Hour

// DataKey is a data key as stored: its id, its KMS-wrapped bytes and when
// it was made.
type DataKey = datakey.Key

// ErrNoKey is a KeyStore's answer for a key (or a current key) it lacks.
var ErrNoKey = datakey.ErrNoKey

// KeyStore keeps the wrapped data keys; *store.Store implements it.
type KeyStore interface {
	// CurrentDataKey returns the current key, or ErrNoKey.
	CurrentDataKey(ctx context.Context) (DataKey, error)
	// DataKey returns a key by id, or ErrNoKey.
	DataKey(ctx context.Context, id KeyID) (DataKey, error)
	// PutDataKey stores a new key and makes it current unless another
	// container already replaced previous (the new key stays usable).
	PutDataKey(ctx context.Context, k DataKey, previous *KeyID) error
}

// KMS is the part of the KMS client a Sealer uses.
type KMS interface {
	GenerateDataKey(ctx context.Context, in *kms.GenerateDataKeyInput, opts ...func(*kms.Options)) (*kms.GenerateDataKeyOutput, error)
	Decrypt(ctx context.Context, in *kms.DecryptInput, opts ...func(*kms.Options)) (*kms.DecryptOutput, error)
}

// Sealer seals and opens tokens. It is safe for concurrent use; one per
// container.
//
// Envelope encryption of personalised links.
//
// Links are sealed with AES-256-GCM under a data key that KMS generates
// (GenerateDataKey, AES_256, with the encryption context purpose=survey-
// links, which the IAM policy requires). The table keeps only the data key
// as KMS wrapped it; the plaintext key lives in the memory of a Lambda
// container. A data key is current for Rotation (24 hours) from its
// creation: then the first request that needs to seal generates the next
// one. Old keys stay in the table, so old links keep opening: a token names
// its key. A request makes at most one KMS call (GenerateDataKey for a new
// current key, or Decrypt of a key this container has not opened yet), and
// none while the container's keys are fresh.
type Sealer struct {
	kms   KMS
	keyID string
	keys  KeyStore
	// Now is the clock; tests move it to rotate keys.
	Now func() time.Time

	mu      sync.Mutex
	current *openKey
	opened  map[KeyID]cipher.AEAD
}

type openKey struct {
	id      KeyID
	aead    cipher.AEAD
	created time.Time
}

// NewSealer returns a Sealer wrapping data keys with the KMS key keyID (an
// id, ARN or alias).
func NewSealer(client KMS, keyID string, keys KeyStore) *Sealer {
	return &Sealer{kms: client, keyID: keyID, keys: keys, Now: time.Now, opened: map[KeyID]cipher.AEAD{}}
}

// SealerFromEnv is a function's Sealer: a KMS client made from cfg, the key
// KMS_KEY_ID names (KeyFromEnv), the data keys kept in keys. Only the
// functions that seal or open links call it, so only they build a KMS client.
func SealerFromEnv(cfg aws.Config, getenv func(string) string, keys KeyStore) *Sealer {
	return NewSealer(kms.NewFromConfig(cfg), KeyFromEnv(getenv), keys)
}

func newAEAD(plaintext []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(plaintext)
	if err != nil {
		return nil, fmt.Errorf("links: data key: %w", err)
	}
	return cipher.NewGCM(block)
}

// currentKey returns the key to seal with: the container's while fresh,
// else the table's current key while fresh (one KMS Decrypt), else a new
// one (one KMS GenerateDataKey).
func (s *Sealer) currentKey(ctx context.Context) (*openKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.Now()
	if s.current != nil && now.Sub(s.current.created) < Rotation {
		return s.current, nil
	}
	stored, err := s.keys.CurrentDataKey(ctx)
	switch {
	case err == nil && now.Sub(stored.Created) < Rotation:
		aead, ok := s.opened[stored.ID]
		if !ok {
			if aead, err = s.unwrap(ctx, stored); err != nil {
				return nil, err
			}
		}
		s.current = &openKey{id: stored.ID, aead: aead, created: stored.Created}
		return s.current, nil
	case err != nil && !errors.Is(err, ErrNoKey):
		return nil, err
	}
	var previous *KeyID
	if err == nil {
		previous = &stored.ID
	}
	return s.rotate(ctx, now, previous)
}

// rotate makes a new data key, stores it wrapped and makes it current.
func (s *Sealer) rotate(ctx context.Context, now time.Time, previous *KeyID) (*openKey, error) {
	out, err := s.kms.GenerateDataKey(ctx, &kms.GenerateDataKeyInput{
		KeyId: aws.String(s.keyID), KeySpec: types.DataKeySpecAes256, EncryptionContext: EncryptionContext,
	})
	if err != nil {
		return nil, fmt.Errorf("links: generate data key: %w", err)
	}
	aead, err := newAEAD(out.Plaintext)
	clear(out.Plaintext)
	if err != nil {
		return nil, err
	}
	k := DataKey{Wrapped: out.CiphertextBlob, Created: now.UTC().Truncate(time.Millisecond)}
	_, _ = rand.Read(k.ID[:])
	if err := s.keys.PutDataKey(ctx, k, previous); err != nil {
		return nil, err
	}
	s.opened[k.ID] = aead
	s.current = &openKey{id: k.ID, aead: aead, created: k.Created}
	return s.current, nil
}

// unwrap asks KMS for a stored key's plaintext and keeps the cipher.
func (s *Sealer) unwrap(ctx context.Context, k DataKey) (cipher.AEAD, error) {
	out, err := s.kms.Decrypt(ctx, &kms.DecryptInput{
		CiphertextBlob: k.Wrapped, KeyId: aws.String(s.keyID), EncryptionContext: EncryptionContext,
	})
	if err != nil {
		return nil, fmt.Errorf("links: decrypt data key %s: %w", k.ID, err)
	}
	aead, err := newAEAD(out.Plaintext)
	clear(out.Plaintext)
	if err != nil {
		return nil, err
	}
	s.opened[k.ID] = aead
	return aead, nil
}

// Seal returns one token per payload, all under the current data key, bound
// to the survey.
func (s *Sealer) Seal(ctx context.Context, surveyID int64, payloads []Payload) ([]string, error) {
	k, err := s.currentKey(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(payloads))
	b := newBatchSealer(k.aead, k.id, PurposeLink, surveyID)
	for i, p := range payloads {
		out[i] = b.seal(p)
	}
	return out, nil
}

// SealEach makes the tokens Seal makes and hands each to each, in order,
// as bytes valid only during the call: for a caller that writes them out
// (the 5,000-link answer), so that no token becomes a string of its own.
func (s *Sealer) SealEach(ctx context.Context, surveyID int64, payloads []Payload, each func(i int, token []byte)) error {
	k, err := s.currentKey(ctx)
	if err != nil {
		return err
	}
	b := newBatchSealer(k.aead, k.id, PurposeLink, surveyID)
	for i, p := range payloads {
		each(i, b.sealAppend(p))
	}
	return nil
}

// Open returns the payload of a token made for the survey, or ErrInvalid
// for any token that does not open (errors of the key store or KMS pass
// through, so that an outage is not mistaken for a bad link).
func (s *Sealer) Open(ctx context.Context, surveyID int64, token string) (Payload, error) {
	plain, err := s.OpenFor(ctx, PurposeLink, surveyID, token)
	if err != nil {
		return Payload{}, err
	}
	payload, err := DecodePayload(plain)
	if err != nil {
		return Payload{}, ErrInvalid
	}
	return payload, nil
}

// SealFor seals one plaintext for a purpose other than a link (a session),
// bound to the survey, under the current data key: no KMS call while the
// container's key is fresh.
func (s *Sealer) SealFor(ctx context.Context, purpose Purpose, surveyID int64, plain []byte) (string, error) {
	k, err := s.currentKey(ctx)
	if err != nil {
		return "", err
	}
	return newBatchSealer(k.aead, k.id, purpose, surveyID).sealBytes(plain), nil
}

// OpenFor returns the plaintext of a token sealed by SealFor for the
// purpose and the survey, or ErrInvalid for any token that does not open
// (store and KMS errors pass through).
func (s *Sealer) OpenFor(ctx context.Context, purpose Purpose, surveyID int64, token string) ([]byte, error) {
	p, err := parse(token)
	if err != nil {
		return nil, err
	}
	aead, err := s.keyFor(ctx, p.kid)
	if err != nil {
		return nil, err
	}
	plain, err := aead.Open(nil, p.nonce, p.sealed, aad(p.header, purpose, surveyID))
	if err != nil {
		return nil, ErrInvalid
	}
	return plain, nil
}

// keyFor returns the cipher of a key id: from memory, else from the table
// and KMS (one Decrypt). An unknown id is ErrInvalid.
func (s *Sealer) keyFor(ctx context.Context, id KeyID) (cipher.AEAD, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if aead, ok := s.opened[id]; ok {
		return aead, nil
	}
	k, err := s.keys.DataKey(ctx, id)
	if errors.Is(err, ErrNoKey) {
		return nil, ErrInvalid
	}
	if err != nil {
		return nil, err
	}
	return s.unwrap(ctx, k)
}
