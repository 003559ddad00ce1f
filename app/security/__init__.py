"""The registry's front door: who is calling (the auth file, Basic, bearer tokens, client
certificates) and what they may do (grants). `app.core` knows only its `Principal` and
`Authorizer`; this package produces the one and implements the other."""
