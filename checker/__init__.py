"""Certificates of verification, and the independent kernel that checks them.

* ``checker.kernel``: the kernel (``check``, ``load``, ``Outcome``): re-checks a certificate
  without the derivation builder (it imports nothing from ``verifier.rules`` or
  ``verifier.verification``);
* ``checker.source``: what the kernel reads from the source text (claims, indices);
* ``checker.certify``: writes a certificate from a verification report (used by
  ``privinfer verify --certificate``; not part of the kernel);
* ``certificate.schema.json``: the JSON Schema of the format ``privinfer-certificate/1``.

See docs/certificates.md.
"""
