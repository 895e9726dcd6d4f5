"""Certificates of verification, and the independent kernel that checks them.

* ``checker.kernel``: the kernel (``check``, ``load``, ``Outcome``): derives every obligation
  of a certificate's claims from its source and discharges them, without the derivation
  builder (it imports nothing from ``verifier.rules`` or ``verifier.verification``); its rules
  are ``checker.definition`` (the root), ``checker.relational``, ``checker.mechanisms``,
  ``checker.safety``, ``checker.folds``, ``checker.exact`` (with ``checker.finite``), over
  ``checker.judgement`` (contexts, costs, obligations);
* ``checker.certify``: writes a certificate from a verification report (used by
  ``privinfer verify --certificate``; not part of the kernel);
* ``certificate.schema.json``: the JSON Schema of the format ``privinfer-certificate/2``.

See docs/certificates.md.
"""
