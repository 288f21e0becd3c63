"""Who a request comes from: bearer tokens (PyJWT) signed by a local key or an identity
provider's JWKS, and the claims API Gateway's JWT authorizer passes on."""
