"""deletion_test"""
