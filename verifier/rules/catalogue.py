"""Every rule of the relational type system and of the Safety judgement, registered.

The builder (``verifier.rules.builder``) applies rules only through the registry
(``verifier.rules.registry``); each rule module registers its rules there when it is imported
(``monadic_rule``, ``synthesis_rule``, ``register_mechanism``, ``infer_rule``,
``judgement_rule``). Importing this module imports them all: whoever builds derivations
(``verifier.verification``) imports it first. It stands above every rule module, and no rule
module imports it.

The order fixes the order of the rules of one construct: the If rules before LiftIf, their
fallback; BindM before Case-Output, which goes first (``first=True``); the closed forms of
``infer`` before the paper's Infer rule (one module). ``exact_finite`` and ``decidable``
register nothing: the verification and the Safety walk call them directly.
"""
from __future__ import annotations

from verifier.rules import monadic_rules  # BindM, UnitM, Let, the synthesis rules, EqualInputs
from verifier.rules import core_rules  # Abs, App-Val, If and Match (before LiftIf)
from verifier.rules import lifting  # LiftIf, the fallback of If
from verifier.rules import couplings  # Case-Output (before BindM), Pointwise
from verifier.rules import mechanism_rules  # the built-in mechanisms
from verifier.rules import higher_order  # parameters of function type, S-Fun
from verifier.rules import joint  # LetRec-Joint, the joint facts of additive functions
from verifier.rules import safety  # the Safety premise of a definition
from verifier.rules import infer_rule  # infer: the closed forms, then Infer

#: the rule modules, in the order they register
MODULES = (monadic_rules, core_rules, lifting, couplings, mechanism_rules, higher_order, joint, safety,
           infer_rule)
