"""From the program to the logic: pure expressions as terms, simple types as sorts.

Shared by the derivation builder (``verifier.rules``) and the certificate kernel
(``checker``), which trusts it as it trusts the parser and the resolver: ``translate`` (pure
expressions in one run as symbolic values, with the range conditions and calls met on the
way), ``symbolic`` (those values), ``logic`` (sorts and range facts of the language's simple
types), ``typing_bridge`` (the type checker's types as sorts and surface types). It imports
the language front end and ``obligations``, never ``verifier.rules``.
"""
