package outbox

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront"
	"github.com/aws/aws-sdk-go-v2/service/cloudfront/types"

	"surveyservice/shared/cdn"
)

// ChannelCloudFront is the outbox channel of the CloudFront calls `make
// run` records (moto has no distribution tenants).
const ChannelCloudFront = "cloudfront"

// CloudFront is `make run`'s stand-in for CloudFront's distribution
// tenants (contract section 23: "records the CloudFront calls it would
// make"): it keeps the tenants in memory, answers as CloudFront does
// (EntityAlreadyExists, EntityNotFound, ETags, no deletion of an enabled
// tenant), and records every call in the outbox (channel "cloudfront",
// to: the domain, subject: the operation) and in Calls. It is
// cdn.CloudFront's API, so the service's own code makes the calls.
type CloudFront struct {
	o       *Outbox // nil: calls are only counted
	mu      sync.Mutex
	tenants map[string]*tenant // by name
	seq     int
	calls   []Call
}

type tenant struct {
	id, domain string
	enabled    bool
	etag       int
}

// Call is one recorded call: the operation and the tenant's name.
type Call struct{ Op, Tenant string }

var _ cdn.API = (*CloudFront)(nil)

// NewCloudFront is an empty stand-in recording into o (nil: nowhere).
func NewCloudFront(o *Outbox) *CloudFront {
	return &CloudFront{o: o, tenants: map[string]*tenant{}}
}

// Calls are the calls made so far, in order.
func (c *CloudFront) Calls() []Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Call(nil), c.calls...)
}

// Tenants are the domains with a tenant, and whether each is enabled.
func (c *CloudFront) Tenants() map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]bool{}
	for _, t := range c.tenants {
		out[t.domain] = t.enabled
	}
	return out
}

func (c *CloudFront) record(op, name, what string) {
	c.calls = append(c.calls, Call{op, name})
	if c.o != nil {
		c.o.add(sendingMessage(ChannelCloudFront, name, op, what))
	}
}

func (t *tenant) out(name string) *types.DistributionTenant {
	return &types.DistributionTenant{Id: aws.String(t.id), Name: aws.String(name), Enabled: aws.Bool(t.enabled),
		Domains: []types.DomainResult{{Domain: aws.String(t.domain)}}}
}

// CreateDistributionTenant records the call and makes the tenant.
func (c *CloudFront) CreateDistributionTenant(_ context.Context, in *cloudfront.CreateDistributionTenantInput, _ ...func(*cloudfront.Options)) (*cloudfront.CreateDistributionTenantOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name := aws.ToString(in.Name)
	domain := ""
	if len(in.Domains) > 0 {
		domain = aws.ToString(in.Domains[0].Domain)
	}
	c.record("CreateDistributionTenant", name, fmt.Sprintf("distribution %s, domain %s, managed certificate (validation: %s), enabled %t",
		aws.ToString(in.DistributionId), domain, in.ManagedCertificateRequest.ValidationTokenHost, aws.ToBool(in.Enabled)))
	if _, ok := c.tenants[name]; ok {
		return nil, &types.EntityAlreadyExists{Message: aws.String("a distribution tenant of this name exists")}
	}
	c.seq++
	t := &tenant{id: "dt_local" + strconv.Itoa(c.seq), domain: domain, enabled: aws.ToBool(in.Enabled), etag: 1}
	c.tenants[name] = t
	return &cloudfront.CreateDistributionTenantOutput{DistributionTenant: t.out(name), ETag: aws.String(strconv.Itoa(t.etag))}, nil
}

// find is the tenant of an identifier (its name or id).
func (c *CloudFront) find(ident string) (string, *tenant) {
	if t, ok := c.tenants[ident]; ok {
		return ident, t
	}
	for name, t := range c.tenants {
		if t.id == ident {
			return name, t
		}
	}
	return "", nil
}

// GetDistributionTenant records the call and answers the tenant.
func (c *CloudFront) GetDistributionTenant(_ context.Context, in *cloudfront.GetDistributionTenantInput, _ ...func(*cloudfront.Options)) (*cloudfront.GetDistributionTenantOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("GetDistributionTenant", aws.ToString(in.Identifier), "")
	name, t := c.find(aws.ToString(in.Identifier))
	if t == nil {
		return nil, &types.EntityNotFound{Message: aws.String("no such distribution tenant")}
	}
	return &cloudfront.GetDistributionTenantOutput{DistributionTenant: t.out(name), ETag: aws.String(strconv.Itoa(t.etag))}, nil
}

// UpdateDistributionTenant records the call and enables or disables.
func (c *CloudFront) UpdateDistributionTenant(_ context.Context, in *cloudfront.UpdateDistributionTenantInput, _ ...func(*cloudfront.Options)) (*cloudfront.UpdateDistributionTenantOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name, t := c.find(aws.ToString(in.Id))
	c.record("UpdateDistributionTenant", name, fmt.Sprintf("enabled %t", aws.ToBool(in.Enabled)))
	if t == nil {
		return nil, &types.EntityNotFound{Message: aws.String("no such distribution tenant")}
	}
	if aws.ToString(in.IfMatch) != strconv.Itoa(t.etag) {
		return nil, &types.PreconditionFailed{Message: aws.String("the ETag does not match")}
	}
	if in.Enabled != nil {
		t.enabled = *in.Enabled
	}
	t.etag++
	return &cloudfront.UpdateDistributionTenantOutput{DistributionTenant: t.out(name), ETag: aws.String(strconv.Itoa(t.etag))}, nil
}

// DeleteDistributionTenant records the call and deletes a disabled tenant.
func (c *CloudFront) DeleteDistributionTenant(_ context.Context, in *cloudfront.DeleteDistributionTenantInput, _ ...func(*cloudfront.Options)) (*cloudfront.DeleteDistributionTenantOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name, t := c.find(aws.ToString(in.Id))
	c.record("DeleteDistributionTenant", name, "")
	switch {
	case t == nil:
		return nil, &types.EntityNotFound{Message: aws.String("no such distribution tenant")}
	case aws.ToString(in.IfMatch) != strconv.Itoa(t.etag):
		return nil, &types.PreconditionFailed{Message: aws.String("the ETag does not match")}
	case t.enabled:
		return nil, &types.ResourceNotDisabled{Message: aws.String("disable the distribution tenant first")}
	}
	delete(c.tenants, name)
	return &cloudfront.DeleteDistributionTenantOutput{}, nil
}
