// Package cdn keeps CloudFront's side of custom domains (contract section
// 23): a multi-tenant distribution (SaaS Manager, template.yaml's
// DomainsDistribution) serves them, one distribution tenant a verified
// domain, with a CloudFront-managed certificate. The verify step creates a
// domain's tenant; suspension, release and deletion remove it.
//
// Both calls may be made again and again: a tenant is named by its domain
// (Name), so a create that finds it made is done (enabled again if it was
// disabled), and a removal that finds none is done. Callers order them so
// that a retry converges (docs/domains.md, "CloudFront"): a tenant is made
// before its domain is marked active, and removed after it is no longer
// active (and before its records are deleted).
package cdn

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront/types"
)

// Tenants creates and removes the distribution tenant of a custom domain.
type Tenants interface {
	// Create makes domain's tenant (enabled), or finds it made.
	Create(ctx context.Context, domain string) error
	// Remove disables and deletes domain's tenant; none is done.
	Remove(ctx context.Context, domain string) error
}

// Name is the tenant's name of a domain: the domain itself (a punycode
// host name is letters, digits, hyphens and dots, which tenant names
// allow), or, past the 128 characters a name may have, "d-" and a hash.
func Name(domain string) string {
	if len(domain) <= 128 {
		return domain
	}
	sum := sha256.Sum256([]byte(domain))
	return "d-" + hex.EncodeToString(sum[:])
}

// API is the part of the CloudFront client the tenants call.
type API interface {
	CreateDistributionTenant(ctx context.Context, in *cloudfront.CreateDistributionTenantInput, opts ...func(*cloudfront.Options)) (*cloudfront.CreateDistributionTenantOutput, error)
	GetDistributionTenant(ctx context.Context, in *cloudfront.GetDistributionTenantInput, opts ...func(*cloudfront.Options)) (*cloudfront.GetDistributionTenantOutput, error)
	UpdateDistributionTenant(ctx context.Context, in *cloudfront.UpdateDistributionTenantInput, opts ...func(*cloudfront.Options)) (*cloudfront.UpdateDistributionTenantOutput, error)
	DeleteDistributionTenant(ctx context.Context, in *cloudfront.DeleteDistributionTenantInput, opts ...func(*cloudfront.Options)) (*cloudfront.DeleteDistributionTenantOutput, error)
}

var _ API = (*cloudfront.Client)(nil)

// CloudFront is Tenants on a multi-tenant distribution.
type CloudFront struct {
	API          API
	Distribution string // its id
}

// FromEnv is the CloudFront tenants of DOMAINS_DISTRIBUTION_ID, or nil
// when it is unset (a deployment without the custom domains'
// distribution: verify and the checks then call nothing).
func FromEnv(cfg aws.Config, getenv func(string) string) Tenants {
	id := getenv("DOMAINS_DISTRIBUTION_ID")
	if id == "" {
		return nil
	}
	return &CloudFront{API: cloudfront.NewFromConfig(cfg), Distribution: id}
}

// Create creates domain's tenant with a CloudFront-managed certificate
// (CloudFront serves the HTTP validation token: the domain's CNAME points
// at the distribution through the account's cname_target already). One
// made before (a retried verify, a suspended domain active again) is
// enabled if it was disabled.
func (c *CloudFront) Create(ctx context.Context, domain string) error {
	_, err := c.API.CreateDistributionTenant(ctx, &cloudfront.CreateDistributionTenantInput{
		DistributionId: aws.String(c.Distribution),
		Name:           aws.String(Name(domain)),
		Domains:        []types.DomainItem{{Domain: aws.String(domain)}},
		Enabled:        aws.Bool(true),
		ManagedCertificateRequest: &types.ManagedCertificateRequest{
			ValidationTokenHost: types.ValidationTokenHostCloudFront,
			PrimaryDomainName:   aws.String(domain),
		},
	})
	var exists *types.EntityAlreadyExists
	if !errors.As(err, &exists) {
		if err != nil {
			return fmt.Errorf("cdn: create the tenant of %s: %w", domain, err)
		}
		return nil
	}
	got, err := c.API.GetDistributionTenant(ctx, &cloudfront.GetDistributionTenantInput{Identifier: aws.String(Name(domain))})
	if err != nil {
		return fmt.Errorf("cdn: read the tenant of %s: %w", domain, err)
	}
	if aws.ToBool(got.DistributionTenant.Enabled) {
		return nil
	}
	_, err = c.API.UpdateDistributionTenant(ctx, &cloudfront.UpdateDistributionTenantInput{
		Id: got.DistributionTenant.Id, IfMatch: got.ETag, Enabled: aws.Bool(true)})
	if err != nil {
		return fmt.Errorf("cdn: enable the tenant of %s: %w", domain, err)
	}
	return nil
}

// Remove disables domain's tenant (CloudFront deletes only a disabled
// one) and deletes it. A delete CloudFront refuses while the disabling
// deploys is an error: the tenant serves nothing meanwhile, and the next
// call deletes it.
func (c *CloudFront) Remove(ctx context.Context, domain string) error {
	got, err := c.API.GetDistributionTenant(ctx, &cloudfront.GetDistributionTenantInput{Identifier: aws.String(Name(domain))})
	var missing *types.EntityNotFound
	if errors.As(err, &missing) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cdn: read the tenant of %s: %w", domain, err)
	}
	id, etag := got.DistributionTenant.Id, got.ETag
	if aws.ToBool(got.DistributionTenant.Enabled) {
		up, err := c.API.UpdateDistributionTenant(ctx, &cloudfront.UpdateDistributionTenantInput{Id: id, IfMatch: etag, Enabled: aws.Bool(false)})
		if err != nil {
			return fmt.Errorf("cdn: disable the tenant of %s: %w", domain, err)
		}
		etag = up.ETag
	}
	_, err = c.API.DeleteDistributionTenant(ctx, &cloudfront.DeleteDistributionTenantInput{Id: id, IfMatch: etag})
	if err != nil && !errors.As(err, &missing) {
		return fmt.Errorf("cdn: delete the tenant of %s: %w", domain, err)
	}
	return nil
}
