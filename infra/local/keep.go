package main

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"surveyservice/shared/links"
)

// keptData is what `make run` keeps across runs under LOCAL_DATA_DIR, so that
// Ctrl-C loses nothing: DynamoDB Local's database file, the master key
// that wraps the sealing data keys, the buckets' objects and the demo
// account's keys. moto keeps nothing of its own across a restart, so the
// KMS key, the queues and the buckets are made again at each start and the
// objects put back; what a queue held when the run stopped is lost (a
// webhook delivery in flight, an export job not yet run).
type keptData struct {
	dir  string
	lock *os.File
}

// openKept makes the directory and takes its lock: two runs on one
// directory would share one SQLite file.
func openKept(dir string) (*keptData, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("LOCAL_DATA_DIR: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("LOCAL_DATA_DIR: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("LOCAL_DATA_DIR %s is in use by another make run (stop it, or set LOCAL_DATA_DIR to another directory)", dir)
	}
	return &keptData{dir: dir, lock: f}, nil
}

func (k *keptData) close() {
	if k != nil && k.lock != nil {
		_ = k.lock.Close()
	}
}

// dynamoDir is DynamoDB Local's -dbPath.
func (k *keptData) dynamoDir() string { return filepath.Join(k.dir, "dynamodb") }

// masterKey is the local master key (32 bytes), made on the first run.
func (k *keptData) masterKey() ([]byte, error) {
	p := filepath.Join(k.dir, "kms-master-key")
	b, err := os.ReadFile(p)
	if err == nil && len(b) == 32 {
		return b, nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	b = make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	return b, os.WriteFile(p, b, 0o600)
}

// keptKMS wraps the sealer's KMS so that data keys outlive moto: moto
// generates each data key, and the wrapped copy the table keeps is sealed
// again under the local master key, which survives a restart where moto's
// key does not. Only `make run` builds one.
type keptKMS struct {
	inner links.KMS
	aead  cipher.AEAD
}

// keptMagic starts a data key wrapped by keptKMS.
var keptMagic = []byte("make-run-kept-key:1:")

func newKeptKMS(inner links.KMS, master []byte) (*keptKMS, error) {
	block, err := aes.NewCipher(master)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &keptKMS{inner: inner, aead: aead}, nil
}

// context binds a wrapped key to its encryption context, as KMS does.
func encryptionAAD(c map[string]string) []byte {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&b, "%q=%q;", k, c[k])
	}
	return b.Bytes()
}

func (k *keptKMS) GenerateDataKey(ctx context.Context, in *kms.GenerateDataKeyInput, opts ...func(*kms.Options)) (*kms.GenerateDataKeyOutput, error) {
	out, err := k.inner.GenerateDataKey(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, k.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	blob := append(append(bytes.Clone(keptMagic), nonce...), k.aead.Seal(nil, nonce, out.Plaintext, encryptionAAD(in.EncryptionContext))...)
	out.CiphertextBlob = blob
	return out, nil
}

func (k *keptKMS) Decrypt(ctx context.Context, in *kms.DecryptInput, opts ...func(*kms.Options)) (*kms.DecryptOutput, error) {
	rest, ok := bytes.CutPrefix(in.CiphertextBlob, keptMagic)
	if !ok {
		return k.inner.Decrypt(ctx, in, opts...)
	}
	n := k.aead.NonceSize()
	if len(rest) < n {
		return nil, errors.New("local kms: short wrapped key")
	}
	plain, err := k.aead.Open(nil, rest[:n], rest[n:], encryptionAAD(in.EncryptionContext))
	if err != nil {
		return nil, fmt.Errorf("local kms: the wrapped key does not open under %s: %w", "LOCAL_DATA_DIR's master key", err)
	}
	return &kms.DecryptOutput{Plaintext: plain, KeyId: in.KeyId}, nil
}

// objectMeta is what kept.saveBuckets writes beside each object.
type objectMeta struct {
	ContentType string            `json:"content_type,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
}

func (k *keptData) bucketsDir() string { return filepath.Join(k.dir, "s3") }

// saveBuckets writes every object of every bucket to the directory, in
// place of what an earlier save wrote.
func (k *keptData) saveBuckets(ctx context.Context, client *s3.Client) error {
	list, err := client.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		return fmt.Errorf("keep buckets: %w", err)
	}
	tmp := k.bucketsDir() + ".new"
	_ = os.RemoveAll(tmp)
	for _, b := range list.Buckets {
		name := aws.ToString(b.Name)
		dir := filepath.Join(tmp, url.PathEscape(name))
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(name)})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if err != nil {
				return fmt.Errorf("keep bucket %s: %w", name, err)
			}
			for _, o := range page.Contents {
				if err := saveObject(ctx, client, name, aws.ToString(o.Key), dir); err != nil {
					return err
				}
			}
		}
	}
	if err := os.RemoveAll(k.bucketsDir()); err != nil {
		return err
	}
	return os.Rename(tmp, k.bucketsDir())
}

func saveObject(ctx context.Context, client *s3.Client, bucket, key, dir string) error {
	obj, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return fmt.Errorf("keep %s/%s: %w", bucket, key, err)
	}
	defer obj.Body.Close()
	body, err := io.ReadAll(obj.Body)
	if err != nil {
		return err
	}
	name := filepath.Join(dir, url.PathEscape(key))
	meta, _ := json.Marshal(objectMeta{ContentType: aws.ToString(obj.ContentType), Metadata: obj.Metadata})
	if err := os.WriteFile(name+".meta", meta, 0o600); err != nil {
		return err
	}
	return os.WriteFile(name+".body", body, 0o600)
}

// restoreBuckets puts every kept object back, making its bucket where
// missing (the service's own buckets are made before, with their rules).
// It answers how many objects it put back.
func (k *keptData) restoreBuckets(ctx context.Context, client *s3.Client) (int, error) {
	buckets, err := os.ReadDir(k.bucketsDir())
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range buckets {
		name, err := url.PathUnescape(b.Name())
		if err != nil || !b.IsDir() {
			continue
		}
		if _, err := client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(name)}); err != nil {
			if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
				return n, fmt.Errorf("restore bucket %s: %w", name, err)
			}
		}
		dir := filepath.Join(k.bucketsDir(), b.Name())
		files, err := filepath.Glob(filepath.Join(dir, "*.body"))
		if err != nil {
			return n, err
		}
		for _, f := range files {
			base := f[:len(f)-len(".body")]
			key, err := url.PathUnescape(filepath.Base(base))
			if err != nil {
				continue
			}
			body, err := os.ReadFile(f)
			if err != nil {
				return n, err
			}
			var meta objectMeta
			if b, err := os.ReadFile(base + ".meta"); err == nil {
				_ = json.Unmarshal(b, &meta)
			}
			in := &s3.PutObjectInput{Bucket: aws.String(name), Key: aws.String(key), Body: bytes.NewReader(body), Metadata: meta.Metadata}
			if meta.ContentType != "" {
				in.ContentType = aws.String(meta.ContentType)
			}
			if _, err := client.PutObject(ctx, in); err != nil {
				return n, fmt.Errorf("restore %s/%s: %w", name, key, err)
			}
			n++
		}
	}
	return n, nil
}

// demoKeys are the demo account's and its member's API keys, kept so that
// a restart prints the same keys (a key's secret is kept only hashed in
// the table).
type demoKeys struct {
	Owner  string `json:"owner"`
	Member string `json:"member"`
}

func (k *keptData) demoKeys() demoKeys {
	var d demoKeys
	if b, err := os.ReadFile(filepath.Join(k.dir, "demo-keys.json")); err == nil {
		_ = json.Unmarshal(b, &d)
	}
	return d
}

func (k *keptData) saveDemoKeys(d demoKeys) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(k.dir, "demo-keys.json"), b, 0o600)
}
