"""The 2-D experiments of §5.1 and Appendix D.

    data         MoG-8 and CKB-8, their deletion sets and densities
    sampling     the sampling engine of one run: :class:`~gendel.synthetic.sampling.Protocol`, its
                 settings; ``setup``, the data, X' and the exact ratio of a protocol; the samples and
                 Alg. 1's proposals every DRE of a run shares, and the log ratios on them
    experiments  runs of the protocol, each taking a Protocol: ``synthetic_statistics``, ``sweep``
                 (cached on disk run by run), ``ratio_maps``; the chapter's grids

A page writes the settings where the reader sees them, ``Protocol("mog8", lam=0.6)``, and from
there to the deletion set is four calls: ``sweep`` -> ``synthetic_statistics`` -> ``setup`` ->
``data.deletion_mask``.
"""
